import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { ListCache } from '../records/list-cache.js';
import { recordRoutes } from '../records/routes.js';
import { RecordValidator } from '../records/validation.js';

/** Every kind's record routes (docs/services/records.md), validated by the kinds' schemas. */
export const recordsPlugin = fp<{ config: Config }>(
  async (api, { config }) => {
    await recordRoutes(api, {
      registry: api.registry,
      records: api.services.records,
      validator: new RecordValidator(api.registry),
      listCache: new ListCache(config.listCacheBytes),
      maxPageBytes: config.listMaxPageBytes,
    });
  },
  { name: 'rtd-records', dependencies: ['rtd-services'], fastify: '5.x', encapsulate: true },
);
