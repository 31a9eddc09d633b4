import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

export function readPackageVersion(rootDir: string): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(rootDir, 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

/** The web app manifest, carrying the package version that the Profile page shows. */
export async function manifestRoute(app: FastifyInstance, version: string): Promise<void> {
  const body = {
    name: 'Road Test Data',
    short_name: 'Road Test',
    description: 'Drives, charging sessions, points of interest and issues of a vehicle road test.',
    version,
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
    return body;
  });
}
