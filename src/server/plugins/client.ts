import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { manifestRoute, readPackageVersion } from '../manifest.js';
import { clientRoutes } from '../static.js';

/** The web app: its manifest, its pages and built files (static.ts). Registered last: its not-found answer is the app's. */
export const clientPlugin = fp<{ config: Config }>(
  async (app, { config }) => {
    await manifestRoute(app, readPackageVersion(config.rootDir));
    await clientRoutes(app, config.clientDir, app.registry);
  },
  { name: 'rtd-client', dependencies: ['rtd-db'], fastify: '5.x' },
);
