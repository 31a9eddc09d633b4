import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { registerApiDocs } from '../api-docs/openapi.js';
import { readPackageVersion } from './client.js';

/** The API's description (/api/openapi.json, /api/docs), registered before any route so that it sees every one. */
export const apiDocsPlugin = fp<{ config: Config }>(
  async (app, { config }) => {
    await registerApiDocs(app, app.registry, readPackageVersion(config.rootDir));
  },
  { name: 'rtd-api-docs', dependencies: ['rtd-db'], fastify: '5.x' },
);
