import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { KindRegistry } from '../shared/kind-types.js';
import type { Config } from './config.js';
import { apiPlugin } from './plugins/api.js';
import { apiDocsPlugin } from './plugins/api-docs.js';
import { clientPlugin } from './plugins/client.js';
import { dbPlugin } from './plugins/db.js';
import { downloadsPlugin } from './plugins/downloads.js';
import { earlierPathsPlugin } from './plugins/earlier-paths.js';
import { fastifyOptions } from './plugins/fastify-options.js';
import { filesPlugin } from './plugins/files.js';
import { httpPlugin } from './plugins/http.js';
import { servicesPlugin } from './plugins/services.js';
import { loadRegistry } from './schemas.js';

export interface AppOptions {
  /** Use these kinds instead of reading config.schemasDir. */
  registry?: KindRegistry;
  /** Where the one-time first-user message goes; the console by default. */
  print?: (line: string) => void;
  /** Pino logger options, or false for none (tests). */
  logger?: boolean | object;
}

/** Builds the whole server, ready to listen, as a list of named plugins in the order they add routes and hooks (docs/ARCHITECTURE.md). */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const registry = options.registry ?? loadRegistry(config.schemasDir);
  const app = Fastify(fastifyOptions(config, registry, options.logger));
  // The API document's and the web manifest's (the Profile page shows it).
  const { version = '0.0.0' } = JSON.parse(fs.readFileSync(path.join(config.rootDir, 'package.json'), 'utf8')) as { version?: string };
  await app.register(dbPlugin, { config, registry });
  await app.register(httpPlugin, { config });
  await app.register(servicesPlugin, { config, print: options.print ?? ((line) => console.log(line)) });
  await app.register(apiDocsPlugin, { version });
  await app.register(apiPlugin, { config, prefix: '/api' });
  await app.register(filesPlugin, { config });
  await app.register(downloadsPlugin, { config, prefix: '/download' });
  await app.register(earlierPathsPlugin);
  await app.register(clientPlugin, { config, version });
  return app;
}
