import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { DayRecords } from '../downloads/day-package.js';
import { downloadRoutes, DownloadSlots } from '../downloads/routes.js';

/** The download service (docs/services/downloads.md): day packages and the statistics workbook. Registered with prefix /download. */
export const downloadsPlugin = fp<{ config: Config }>(
  async (downloads, { config }) => {
    const { stats, files, signInHook } = downloads.services;
    downloads.addHook('onRoute', signInHook(true));
    await downloadRoutes(downloads, {
      registry: downloads.registry,
      stats,
      rows: new DayRecords(downloads.db.kysely),
      files,
      slots: new DownloadSlots(config.downloadsPerUser),
    });
  },
  { name: 'rtd-downloads', dependencies: ['rtd-services'], fastify: '5.x', encapsulate: true },
);
