import fs from 'node:fs';
import path from 'node:path';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { clientRoutes } from '../static.js';

export function readPackageVersion(rootDir: string): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(rootDir, 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

/** The web app: its manifest (with the package version that the Profile page shows), its pages and built files (static.ts). Registered last: its not-found answer is the app's. */
export const clientPlugin = fp<{ config: Config }>(
  async (app, { config }) => {
    const manifest = {
      name: 'Road Test Data',
      short_name: 'Road Test',
      description: 'Drives, charging sessions, points of interest and issues of a vehicle road test.',
      version: readPackageVersion(config.rootDir),
      start_url: '/',
      scope: '/',
      display: 'standalone',
      orientation: 'portrait',
      background_color: '#f8fafc',
      theme_color: '#1e3a5f',
      icons: [{ src: '/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
    };
    app.get('/manifest.json', async (_request, reply) => {
      reply.header('Cache-Control', 'no-cache').type('application/manifest+json; charset=utf-8');
      return manifest;
    });
    await clientRoutes(app, config.clientDir, app.registry);
  },
  { name: 'rtd-client', dependencies: ['rtd-db'], fastify: '5.x' },
);
