import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { fileRoutes } from '../files/routes.js';
import { UploadSessionStore } from '../files/sessions.js';
import { Sweeper } from '../files/sweeper.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Removes expired upload sessions and orphaned temporary files (at start and periodically). */
    sweeper: Sweeper;
  }
}

/** The shared-files service (docs/services/files.md) at /sharepoint, and the sweeper of what uploads leave behind. */
export const filesPlugin = fp<{ config: Config }>(
  async (app, { config }) => {
    const { files, users, signer, limits, signInHook } = app.services;
    const sessions = new UploadSessionStore(app.db.kysely, app.db.dialect);
    const routes = async (sp: FastifyInstance) => {
      sp.addHook('onRoute', signInHook(true));
      await fileRoutes(sp, { storage: files, users, signer, limits, sessions, publicUrl: config.publicUrl });
    };
    await app.register(routes, { prefix: '/sharepoint' });
    const sweeper = new Sweeper(files, sessions, config.uploads, app.log);
    app.decorate('sweeper', sweeper);
    app.addHook('onReady', async () => sweeper.start());
    app.addHook('onClose', async () => sweeper.stop());
  },
  { name: 'rtd-files', dependencies: ['rtd-services'], fastify: '5.x' },
);
