import Fastify, { type FastifyInstance, type onRequestHookHandler } from 'fastify';
import { installCompression } from './http/compression.js';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyCors from '@fastify/cors';
import { installSecurityHeaders } from './http/security-headers.js';
import { databaseRateLimitStore } from './auth/rate-limit-store.js';
import type { KindRegistry } from '../shared/kind-types.js';
import type { Config } from './config.js';
import { openDb, type Db } from './db/database.js';
import { migrate } from './db/migrations.js';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { rememberSchemas, type SchemaStartReport } from './records/schema-versions.js';
import { LoginThrottle } from './auth/login-throttle.js';
import { linkRoutes } from './auth/link-routes.js';
import { authRoutes } from './auth/routes.js';
import { authenticateOrSignedLink, LinkSigner, loadLinkSecret } from './auth/signed-links.js';
import { authenticate, confineRoles } from './auth/authenticate.js';
import { AnalysisJobs } from './analysis/jobs.js';
import { analysedKinds, analysisPaths, analysisRoutes, nounOf } from './analysis/routes.js';
import { registerApiDocs } from './api-docs/openapi.js';
import { serialisableSchemas } from './api-docs/kind-schemas.js';
import { requestForLog } from './auth/log-redaction.js';
import { TokenStore } from './auth/tokens.js';
import { fileRoutes } from './files/routes.js';
import { FileStorage } from './files/storage.js';
import { installErrorHandler } from './http/error-handler.js';
import { routeValidatorCompiler } from './http/route-validation.js';
import { installInputGuard } from './http/input-guard.js';
import { installBodyDeadline } from './http/timeouts.js';
import { UploadSessionStore } from './files/sessions.js';
import { Sweeper } from './files/sweeper.js';
import { UploadLimits } from './files/upload-limits.js';
import { openRecordStore } from './records/store/open.js';
import type { RecordStore } from './records/store/types.js';
import type { SoleWriter } from './records/store/sole-writer.js';
import { recordRoutes } from './records/routes.js';
import { ListCache } from './records/list-cache.js';
import { RecordValidator } from './records/validation.js';
import { loadRegistry } from './schemas.js';
import { manifestRoute, readPackageVersion } from './manifest.js';
import { clientRoutes } from './static.js';
import { seedFirstUser } from './users/seed.js';
import { DayRecords } from './downloads/day-records.js';
import { downloadRoutes } from './downloads/routes.js';
import { DownloadSlots } from './downloads/user-slots.js';
import { StatsRepository } from './stats/stats-repository.js';
import { statsRoutes } from './stats/routes.js';
import { UserRepository } from './users/user-repository.js';

export interface AppOptions {
  /** Use these kinds instead of reading config.schemasDir. */
  registry?: KindRegistry;
  /** Where the one-time first-user message goes; the console by default. */
  print?: (line: string) => void;
  /** Pino logger options, or false for none (tests). */
  logger?: boolean | object;
}

/** What the services' route plugins build on; decorated on the app as `services`. */
export interface Services {
  users: UserRepository;
  tokens: TokenStore;
  records: RecordStore;
  signer: LinkSigner;
  serviceAuth: ReturnType<typeof authenticateOrSignedLink>;
  /** The project file trees under DATA_DIR/files (shared-files service, day packages). */
  files: FileStorage;
  /** PostgreSQL: whether this instance writes records alone (decision 030); undefined on SQLite. */
  sole: SoleWriter | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    registry: KindRegistry;
    services: Services;
    /** Every registered route as 'METHOD /url' (for the security suite's coverage check). */
    routeList: string[];
    /** Removes expired upload sessions and orphaned temporary files (at start and periodically). */
    sweeper: Sweeper;
  }
}

/**
 * Builds the whole server, ready to listen: database opened and migrated, first user seeded,
 * routes for every kind registered. main.ts only reads the environment and listens; tests
 * build the app the same way.
 */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const registry = options.registry ?? loadRegistry(config.schemasDir);
  const db = await openDb(config);
  let schemaStart: SchemaStartReport;
  try {
    await migrate(db, registry.values());
    schemaStart = await rememberSchemas(db, registry);
  } catch (e) {
    await db.kysely.destroy();
    throw e;
  }
  const tokens = new TokenStore(db.kysely, config.tokenTtlSeconds);
  const users = new UserRepository(db.kysely, (userId) => tokens.forgetUser(userId));
  await seedFirstUser(users, config, options.print ?? ((line) => console.log(line)));

  const defaultSerializer = SerializerSelector();
  const app = Fastify({
    // Answers are serialised with record schemas that send values as stored (api-docs/kind-schemas.ts).
    schemaController: {
      compilersFactory: {
        buildSerializer: (external, options) => defaultSerializer(serialisableSchemas(external as Record<string, unknown>, registry), options),
      },
    },
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'password', 'access_token'], censor: '[redacted]' },
            // Upload-session URLs and signed links are credentials too (docs/SECURITY.md).
            serializers: { req: requestForLog },
            ...(typeof options.logger === 'object' ? options.logger : {}),
          },
    bodyLimit: 1024 * 1024,
    ...(config.tls ? { https: { cert: config.tls.cert, key: config.tls.key } } : {}),
    // A number of hops is trusted as proxy-addr does it: the nearest n addresses.
    trustProxy: typeof config.trustProxy === 'number' ? (_address: string, hop: number) => hop < (config.trustProxy as number) : config.trustProxy,
    // Timeouts (docs/SECURITY.md): headers within headersMs, silence closes after idleMs; request
    // bodies have their own deadline (http/timeouts.ts) and uploads a minimum rate.
    connectionTimeout: config.timeouts.idleMs,
    keepAliveTimeout: 5_000,
    requestTimeout: 0,
    routerOptions: { maxParamLength: 20000 },

    // Errors before routing (a path that is not valid UTF-8) get the envelope too.
    frameworkErrors: (error, _request, reply) => {
      const status = error.statusCode ?? 400;
      const msg = error.code === 'FST_ERR_BAD_URL' ? 'The address has a broken %-escape or is not UTF-8; encode it as UTF-8' : error.message;
      void (reply as unknown as { code(n: number): { send(b: unknown): unknown } }).code(status).send({ code: status, msg, data: null });
    },
  });
  // Node checks header deadlines every 30 s, so a header trickle is closed within headersMs + 30 s.
  app.server.headersTimeout = config.timeouts.headersMs;
  // Every route as 'METHOD /url', so the security suite can insist that it attacks each one.
  const routeList: string[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routeList.push(`${method} ${route.url}`);
  });
  app.decorate('routeList', routeList);
  // Route schemas describe the API (OpenAPI), serialise answers and validate requests: one truth per
  // route, with messages that name the field (docs/decisions/044). Record bodies are checked by the
  // record validator, compiled from the same schema files.
  app.setValidatorCompiler(routeValidatorCompiler());
  app.decorate('db', db);
  app.decorate('registry', registry);
  for (const line of schemaStart.info) app.log.info(line);
  for (const line of schemaStart.warnings) app.log.warn(line);
  app.decorateRequest('user', undefined);
  app.addHook('onClose', async () => db.kysely.destroy());

  installErrorHandler(app);
  // Cross-origin access only for origins an admin lists (another front end on another host).
  if (config.corsOrigins.length > 0) {
    await app.register(fastifyCors, {
      origin: config.corsOrigins,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
      allowedHeaders: ['authorization', 'content-type', 'clientid', 'content-range', 'if-match', 'content-language', 'istoken', 'isencrypt', 'repeatsubmit'],
      exposedHeaders: ['etag', 'content-disposition', 'retry-after', 'www-authenticate'],
      maxAge: 600,
    });
  }
  installInputGuard(app);
  // The analysed kinds' workers stream their blurred copies at their own pace, like uploads.
  installBodyDeadline(
    app,
    config.timeouts.bodyMs,
    config.uploads,
    analysedKinds(registry.values()).map((kind) => `/api${analysisPaths(kind).desensitized}`),
  );
  await installSecurityHeaders(app);
  await installCompression(app);

  const throttle = new LoginThrottle(db.kysely, config.login);
  // Old counters are dropped now and then, so rotating usernames and addresses cannot grow the table forever.
  const pruning = setInterval(() => {
    throttle.prune().catch((err: unknown) => app.log.error({ err }, 'pruning sign-in counters failed'));
  }, 3600_000);
  pruning.unref();
  app.addHook('onClose', async () => clearInterval(pruning));
  // Record storage for the configured database, chosen once (records/store/open.ts, decision 048); on PostgreSQL
  // this instance may be the sole writer, and so know generations without reading them (decision 030).
  const { store: records, sole } = await openRecordStore(db, registry.values(), {
    soleWriter: config.soleWriter,
    onSoleWriterError: (err) => app.log.warn({ err }, 'the sole-writer lock connection failed; generations are read until it is back'),
  });
  if (sole !== undefined) app.addHook('onClose', async () => sole.close());
  const validator = new RecordValidator(registry);
  const signer = new LinkSigner(await loadLinkSecret(db.kysely));
  // Bearer or signed link: for the download and shared-files services (opened in frames and tabs).
  // The analysed kinds' routes, named where a worker or tester account is sent away from the other's.
  const analysisHints = analysedKinds(registry.values()).map((kind) => ({
    workers: analysisPaths(kind).fileAnalyze,
    submit: analysisPaths(kind).submit,
    noun: nounOf(kind),
  }));
  const serviceAuth = authenticateOrSignedLink(tokens, signer, analysisHints);
  app.decorate('services', { users, tokens, records, signer, serviceAuth, files: new FileStorage(`${config.dataDir}/files`), sole });

  const limits = new UploadLimits(config.uploads, app.services.files.rootDir, db.kysely);
  await registerApiDocs(app, registry, readPackageVersion(config.rootDir));
  const stats = new StatsRepository(db.kysely, db.dialect);
  await app.register(
    async (api) => {
      // One sign-in check for the whole API, before any body is read; routes marked public skip it.
      // Given to each route as it is added (its config is known then), not looked up per request:
      // request.routeOptions builds a new object on every read.
      const guard = authenticate(tokens, config.clientId);
      const signInCheck =
        (workerRoute: boolean): onRequestHookHandler =>
        (request, _reply, done) => {
          // Worker accounts reach only the fileAnalyze routes, and only they do (docs/decisions/021).
          const confine = (): void => {
            try {
              confineRoles(request.user, workerRoute, analysisHints);
            } catch (error) {
              done(error as Error);
              return;
            }
            done();
          };
          let reading: Promise<void> | undefined;
          try {
            reading = guard(request);
          } catch (error) {
            done(error as Error);
            return;
          }
          if (reading === undefined) confine();
          else reading.then(confine, (error: unknown) => done(error as Error));
        };
      const forTesters = signInCheck(false);
      const forWorkers = signInCheck(true);
      // API answers are the user's data, for no shared cache: a route that may be cached says so itself.
      api.addHook('onRequest', (_request, reply, done) => {
        reply.raw.setHeader('cache-control', 'no-store');
        done();
      });
      api.addHook('onRoute', (route) => {
        const routeConfig = route.config as { public?: boolean; worker?: boolean } | undefined;
        if (routeConfig?.public === true) return;
        // First of the route's own hooks, so nothing a plugin adds to the route runs before it.
        route.onRequest = [routeConfig?.worker === true ? forWorkers : forTesters, ...[route.onRequest ?? []].flat()];
      });
      // Limits are set per route (sign-in only), counted in the database so instances share them.
      await api.register(fastifyRateLimit, { global: false, store: databaseRateLimitStore(db.kysely) });
      await authRoutes(api, { users, tokens, throttle, clientId: config.clientId, perAddressPerMinute: config.login.perAddressPerMinute });
      await linkRoutes(api, { signer });
      await recordRoutes(api, { registry, records, validator, listCache: new ListCache(config.listCacheBytes), maxPageBytes: config.listMaxPageBytes });
      await statsRoutes(api, { registry, stats });
      // The AI analysis, for every kind whose schema declares x-kind.analysis (docs/decisions/041).
      for (const kind of analysedKinds(registry.values())) {
        const jobs = new AnalysisJobs(db.kysely, records.writes, kind, config.analysis.leaseSeconds);
        await analysisRoutes(api, { kind, jobs, records: records.reads, storage: app.services.files, limits });
      }
    },
    { prefix: '/api' },
  );
  // service: files (the shared-files service at /sharepoint registers here)
  const uploadSessions = new UploadSessionStore(db.kysely, db.dialect);
  await app.register(
    async (sp) => fileRoutes(sp, { storage: app.services.files, users, signer, serviceAuth, limits, sessions: uploadSessions, publicUrl: config.publicUrl }),
    {
      prefix: '/sharepoint',
    },
  );
  const sweeper = new Sweeper(app.services.files, uploadSessions, config.uploads, app.log);
  app.decorate('sweeper', sweeper);
  app.addHook('onReady', async () => sweeper.start());
  app.addHook('onClose', async () => sweeper.stop());
  // service: downloads (the download service at /download and the statistics endpoint register here)
  await app.register(
    async (downloads) =>
      downloadRoutes(downloads, {
        registry,
        stats,
        rows: new DayRecords(db.kysely),
        files: app.services.files,
        serviceAuth,
        slots: new DownloadSlots(config.downloadsPerUser),
      }),
    { prefix: '/download' },
  );
  await manifestRoute(app, readPackageVersion(config.rootDir));
  await clientRoutes(app, config.clientDir, registry);
  return app;
}
