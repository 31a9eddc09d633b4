import fp from 'fastify-plugin';
import type { KindRegistry } from '../../shared/kind-types.js';
import type { Config } from '../config.js';
import { openDb, type Db } from '../db/database.js';
import { migrate } from '../db/migrations.js';
import { rememberSchemas } from '../records/schema-versions.js';
import { fileKinds } from '../records/store/days.js';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    registry: KindRegistry;
    /** Notes this server's schemas as the ones served, once it holds its port (main.ts; decision 058), never before. */
    takeOverSchemas: () => Promise<void>;
  }
}

/** The database: opened, migrated for every kind, closed with the app; a start that fails here leaves nothing open. */
export const dbPlugin = fp<{ config: Config; registry: KindRegistry }>(
  async (app, { config, registry }) => {
    const db = await openDb(config);
    try {
      await migrate(db, registry.values());
      for (const line of await fileKinds(db, registry)) app.log.info(line);
    } catch (e) {
      await db.kysely.destroy();
      throw e;
    }
    app.decorate('db', db);
    app.decorate('registry', registry);
    app.decorate('takeOverSchemas', async () => {
      const schemaStart = await rememberSchemas(db, registry);
      for (const line of schemaStart.info) app.log.info(line);
      for (const line of schemaStart.warnings) app.log.warn(line);
    });
    app.addHook('onClose', async () => db.kysely.destroy());
  },
  { name: 'rtd-db', fastify: '5.x' },
);
