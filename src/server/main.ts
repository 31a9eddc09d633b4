import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import { buildApp } from './app.js';
import { framed } from './users/seed.js';
import { ConfigError, loadConfig, loadDotEnv } from './config.js';
import { SchemaError } from './schemas.js';

/** The package root: the nearest folder above this file that holds package.json. */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the server');
    dir = parent;
  }
  return dir;
}

async function main(): Promise<void> {
  const root = packageRoot();
  loadDotEnv(root);
  const config = loadConfig(process.env, root);
  // What start-up has to tell a person (the first user's one-time password) is said after the
  // server is listening, framed, so that it is the last thing of the start and easy to find.
  const notices: string[] = [];
  const app = await buildApp(config, { print: (line) => notices.push(line) });
  let closing = false;
  const stop = (signal: string): void => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'stopping');
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
  const scheme = config.tls ? 'https' : 'http';
  app.log.info(`Road Test Data is serving ${app.db.describe} on ${scheme}://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}/`);
  for (const notice of notices) console.log(framed(notice));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(`Configuration error: ${err.message}\nSee README.md and .env.example.`);
  else if (err instanceof SchemaError) console.error(err.message);
  else console.error(err);
  process.exit(1);
});
