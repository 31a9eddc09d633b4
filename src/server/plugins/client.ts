import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { registerApiDocs } from '../api-docs/openapi.js';
import { manifestRoute, readPackageVersion } from '../manifest.js';
import { clientRoutes } from '../static.js';

/**
 * The API's description (/api/openapi.json, /api/docs), registered before any route so that it
 * sees every one.
 */
export const apiDocsPlugin = fp<{ config: Config }>(
  async (app, { config }) => {
    await registerApiDocs(app, app.registry, readPackageVersion(config.rootDir));
  },
  { name: 'rtd-api-docs', dependencies: ['rtd-db'], fastify: '5.x' },
);

/** The web app: its manifest, its pages and built files (static.ts). Registered last: its not-found answer is the app's. */
export const clientPlugin = fp<{ config: Config }>(
  async (app, { config }) => {
    await manifestRoute(app, readPackageVersion(config.rootDir));
    await clientRoutes(app, config.clientDir, app.registry);
  },
  { name: 'rtd-client', dependencies: ['rtd-db'], fastify: '5.x' },
);
