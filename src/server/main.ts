import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, loadDotEnv, type Config } from './config.js';
import { SchemaError } from './schemas.js';

function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the server');
    dir = parent;
  }
  return dir;
}

/** A start-up notice between two rules of '=' as wide as its longest line, with a blank line around it (printed last). */
export function framed(text: string): string {
  const lines = text.split('\n');
  while (lines[0]?.trim() === '') lines.shift();
  while (lines.at(-1)?.trim() === '') lines.pop();
  const rule = '='.repeat(Math.max(20, ...lines.map((line) => line.length)));
  return ['', rule, ...lines, rule, ''].join('\n');
}

/** The port is taken: said in one sentence, after nothing shared was changed. */
class PortBusy extends Error {
  constructor(config: Config) {
    super(
      `Port ${config.port} on ${config.host} is already in use (another server running?): this server did not start and changed nothing; stop the other one or set PORT to a free port.`,
    );
  }
}

/** Whether the port can be listened on now; checked before the database is opened, so that a busy port changes nothing. */
function probePort(config: Config): Promise<void> {
  if (config.port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? new PortBusy(config) : e));
    probe.listen({ port: config.port, host: config.host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

function stopOnSignals(app: FastifyInstance): void {
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
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stop(signal));
}

/**
 * Reads the environment, builds the app and serves; nothing shared changes before the port is held
 * (decision 058). Ends the process with a message on any failure. onServing runs once this server
 * holds its port and has taken over the schemas (scripts/start.mjs moves its build pointer then).
 */
export async function main(options: { onServing?: () => void } = {}): Promise<void> {
  try {
    const root = packageRoot();
    loadDotEnv(root);
    const config = loadConfig(process.env, root);
    await probePort(config);
    // Notices (the first user's password) are said last, framed, so they are easy to find.
    const notices: string[] = [];
    const app = await buildApp(config, { print: (line) => notices.push(line) });
    stopOnSignals(app);
    await app.listen({ port: config.port, host: config.host }).catch(async (e: NodeJS.ErrnoException) => {
      await app.close();
      throw e.code === 'EADDRINUSE' ? new PortBusy(config) : e;
    });
    await app.takeOverSchemas();
    options.onServing?.();
    const scheme = config.tls ? 'https' : 'http';
    app.log.info(`Road Test Data is serving ${app.db.describe} on ${scheme}://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}/`);
    for (const notice of notices) console.log(framed(notice));
  } catch (err) {
    if (err instanceof ConfigError) console.error(`Configuration error: ${err.message}\nSee README.md and .env.example.`);
    else if (err instanceof SchemaError || err instanceof PortBusy) console.error(err.message);
    else console.error(err);
    process.exit(1);
  }
}

// Run directly (node, tsx): serve. Imported (scripts/start.mjs): the importer calls main.
const entry = process.argv[1];
if (entry !== undefined && fs.existsSync(entry) && fs.realpathSync(entry) === fs.realpathSync(fileURLToPath(import.meta.url))) await main();
