import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { analysedKinds, analysisPaths, nounOf } from '../analysis/routes.js';
import { requireSignIn } from '../auth/authenticate.js';
import { LinkSigner, loadLinkSecret } from '../auth/signed-links.js';
import { TokenStore } from '../auth/tokens.js';
import { FileStorage } from '../files/storage.js';
import { UploadLimits } from '../files/upload-limits.js';
import { openRecordStore } from '../records/store/open.js';
import { StatsRepository } from '../stats/stats-repository.js';
import { UserRepository } from '../users/user-repository.js';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

type Services = Awaited<ReturnType<typeof buildServices>>;

/**
 * What the route plugins share, built once on the database. signInHook is the check each plugin
 * that serves routes adds (auth/authenticate.ts); `links`: signed links are taken too.
 */
async function buildServices(app: FastifyInstance, config: Config, print: (line: string) => void) {
  const { db } = app;
  const tokens = new TokenStore(db.kysely, config.tokenTtlSeconds);
  const users = new UserRepository(db.kysely, (userId) => tokens.forgetUser(userId));
  await users.seedFirst(config.initialUser, print);
  // On PostgreSQL this instance may be the sole writer, and so know generations without reading them (decision 030).
  const { store: records, sole } = await openRecordStore(db, app.registry.values(), {
    soleWriter: config.soleWriter,
    onSoleWriterError: (err) => app.log.warn({ err }, 'the sole-writer lock connection failed; generations are read until it is back'),
  });
  if (sole !== undefined) app.addHook('onClose', async () => sole.close());
  const signer = new LinkSigner(await loadLinkSecret(db.kysely));
  // The analysed kinds' routes (decision 041), named where a worker or tester account is sent away from the other's.
  const analysed = analysedKinds(app.registry.values()).map((kind) => ({ ...analysisPaths(kind), noun: nounOf(kind) }));
  const signInHook = (links: boolean) => requireSignIn({ tokens, clientId: config.clientId, analysed, ...(links ? { signer } : {}) });
  const files = new FileStorage(`${config.dataDir}/files`);
  const limits = new UploadLimits(config.uploads, files.rootDir, db.kysely);
  return { users, tokens, records, sole, signer, signInHook, files, limits, stats: new StatsRepository(db.kysely, db.dialect) };
}

export const servicesPlugin = fp<{ config: Config; print: (line: string) => void }>(
  async (app, { config, print }) => {
    app.decorateRequest('user', undefined);
    app.decorate('services', await buildServices(app, config, print));
  },
  { name: 'rtd-services', dependencies: ['rtd-db'], fastify: '5.x' },
);
