import type { onRouteHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { KindRegistry } from '../../shared/kind-types.js';
import type { Config } from '../config.js';
import { analysedKinds, analysisPaths, nounOf } from '../analysis/routes.js';
import type { AnalysisRoutesHint } from '../auth/authenticate.js';
import { requireSignIn } from '../auth/sign-in-hook.js';
import { LinkSigner, loadLinkSecret } from '../auth/signed-links.js';
import { TokenStore } from '../auth/tokens.js';
import { FileStorage } from '../files/storage.js';
import { UploadLimits } from '../files/upload-limits.js';
import { openRecordStore } from '../records/store/open.js';
import type { SoleWriter } from '../records/store/sole-writer.js';
import type { RecordStore } from '../records/store/types.js';
import { StatsRepository } from '../stats/stats-repository.js';
import { seedFirstUser } from '../users/seed.js';
import { UserRepository } from '../users/user-repository.js';

/** What the services' route plugins build on; decorated on the app as `services`. */
export interface Services {
  users: UserRepository;
  tokens: TokenStore;
  records: RecordStore;
  signer: LinkSigner;
  /**
   * The sign-in check every plugin that serves routes adds as its onRoute hook (auth/sign-in-hook.ts);
   * `links`: signed links are taken too (the download and shared-files services, opened in frames and tabs).
   */
  signInHook: (links: boolean) => onRouteHookHandler;
  /** The project file trees under DATA_DIR/files (shared-files service, day packages). */
  files: FileStorage;
  /** PostgreSQL: whether this instance writes records alone (decision 030); undefined on SQLite. */
  sole: SoleWriter | undefined;
  /** Upload sizes, open sessions and free space, shared by the shared-files service and the analysis uploads. */
  limits: UploadLimits;
  /** Counts by day, for the statistics endpoint and the download service. */
  stats: StatsRepository;
  /** The analysed kinds' routes, named where a worker or tester account is sent away from the other's. */
  analysisHints: AnalysisRoutesHint[];
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

/** The analysed kinds' routes (docs/decisions/041), for the sign-in checks that keep worker and tester accounts apart. */
function analysisHintsOf(registry: KindRegistry): AnalysisRoutesHint[] {
  return analysedKinds(registry.values()).map((kind) => ({
    workers: analysisPaths(kind).fileAnalyze,
    submit: analysisPaths(kind).submit,
    noun: nounOf(kind),
  }));
}

/**
 * What the route plugins share, built once on the database: users (the first one seeded on a new
 * install), sign-ins, signed links, the record repository, the project files and the upload limits.
 */
export const servicesPlugin = fp<{ config: Config; print: (line: string) => void }>(
  async (app, { config, print }) => {
    const { db } = app;
    // The signed-in user, set by the sign-in checks (auth/authenticate.ts).
    app.decorateRequest('user', undefined);
    const tokens = new TokenStore(db.kysely, config.tokenTtlSeconds);
    const users = new UserRepository(db.kysely, (userId) => tokens.forgetUser(userId));
    await seedFirstUser(users, config, print);
    // Record storage for the configured database, chosen once (records/store/open.ts, decision 048); on PostgreSQL
    // this instance may be the sole writer, and so know generations without reading them (decision 030).
    const { store: records, sole } = await openRecordStore(db, app.registry.values(), {
      soleWriter: config.soleWriter,
      onSoleWriterError: (err) => app.log.warn({ err }, 'the sole-writer lock connection failed; generations are read until it is back'),
    });
    if (sole !== undefined) app.addHook('onClose', async () => sole.close());
    const signer = new LinkSigner(await loadLinkSecret(db.kysely));
    const analysisHints = analysisHintsOf(app.registry);
    const signInHook = (links: boolean) => requireSignIn({ tokens, clientId: config.clientId, analysed: analysisHints, ...(links ? { signer } : {}) });
    const files = new FileStorage(`${config.dataDir}/files`);
    const limits = new UploadLimits(config.uploads, files.rootDir, db.kysely);
    const stats = new StatsRepository(db.kysely, db.dialect);
    app.decorate('services', { users, tokens, records, signer, signInHook, files, sole, limits, stats, analysisHints });
  },
  { name: 'rtd-services', dependencies: ['rtd-db'], fastify: '5.x' },
);
