import fs from 'node:fs';
import zlib from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { newSchemaName } from './database-schemas.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { loadConfig, type Config } from '../../src/server/config.js';
import { UserRepository } from '../../src/server/users/user-repository.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** The databases the server suite runs against: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export interface DbTarget {
  name: 'sqlite' | 'postgres';
  url?: string;
}

export function dbTargets(): DbTarget[] {
  const url = process.env['TEST_DATABASE_URL'];
  return url ? [{ name: 'sqlite' }, { name: 'postgres', url }] : [{ name: 'sqlite' }];
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is, for malformed bodies. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestServer {
  app: FastifyInstance;
  url: string;
  config: Config;
  /** Where this server keeps its files (and its SQLite database), and its PostgreSQL schema. */
  storage: { dataDir: string; schema: string };
  request(method: string, urlPath: string, options?: RequestOptions): Promise<Reply>;
  login(username: string, password: string): Promise<string>;
  close(): Promise<void>;
  /** Every 5xx answer this server gave but 503 and 507 ('METHOD url -> status'): the security suites insist on none. */
  serverErrors: string[];
}

export const ALICE = { username: 'alice', password: 'alice-password-1', project: 'P1', vehicle: 'V1' };
export const BOB = { username: 'bob', password: 'bob-password-12', project: 'P2', vehicle: 'V2' };
/** Carol shares Alice's project, to show that scoping is by project, not by user. */
export const CAROL = { username: 'carol', password: 'carol-password-1', project: 'P1', vehicle: 'V7' };

export interface StartOptions {
  /** Start on the storage of an earlier server (its `storage`), as a restart or a second instance would. */
  reuse?: { dataDir: string; schema: string };
  /** Leave the data folder and the schema in place on close, so that another server can reuse them. */
  keep?: boolean;
}

/**
 * Starts the real server on a free port against a fresh database (a temp SQLite file, or a
 * fresh PostgreSQL schema) with Alice as the initial user and Bob (another project) and Carol.
 * With options.reuse it starts on an earlier server's data folder and schema instead.
 */
export async function startServer(target: DbTarget, env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestServer> {
  const dataDir = options.reuse?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-test-'));
  const schema = options.reuse?.schema ?? newSchemaName();
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      // Test files sign in far more often than people do; the security tests set their own limit.
      LOGIN_ADDRESS_PER_MINUTE: '600',
      INITIAL_USERNAME: ALICE.username,
      INITIAL_PASSWORD: ALICE.password,
      INITIAL_PROJECT: ALICE.project,
      INITIAL_VEHICLE: ALICE.vehicle,
      ...(target.url ? { DATABASE_URL: target.url, DATABASE_SCHEMA: schema } : {}),
      ...env,
    },
    ROOT,
  );
  // The PostgreSQL schema is dropped with the run's others when the run ends (pg-global.ts).
  const app = await buildApp(config, { print: () => {}, logger: false });
  const users = new UserRepository(app.db.kysely);
  for (const u of [BOB, CAROL]) if (!(await users.findByUsername(u.username))) await users.add(u);
  const serverErrors: string[] = [];
  app.addHook('onResponse', async (request, reply) => {
    // 503 (busy, with Retry-After) and 507 (disk full) are answers the server means to give.
    if (reply.statusCode >= 500 && reply.statusCode !== 503 && reply.statusCode !== 507)
      serverErrors.push(`${request.method} ${request.url.slice(0, 200)} -> ${reply.statusCode}`);
  });
  recordExchanges(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  await app.takeOverSchemas();
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

  async function request(method: string, urlPath: string, options: RequestOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(url + urlPath, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: leave the text
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }

  async function login(username: string, password: string): Promise<string> {
    const res = await request('POST', '/api/auth/login', { body: { username, password, clientId: config.clientId, grantType: 'password' } });
    if (res.body?.code !== 200) throw new Error(`login of ${username} failed: ${JSON.stringify(res.body)}`);
    return res.body.data.access_token as string;
  }

  async function close(): Promise<void> {
    await app.close();
    if (options.keep) return;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  return { app, url, config, storage: { dataDir, schema }, request, login, close, serverErrors };
}

export interface UseOptions extends StartOptions {
  /**
   * The 5xx answers ('METHOD url -> status', as in `serverErrors`) this file provokes on purpose;
   * any other fails the file.
   */
  expectServerErrors?: (line: string) => boolean;
}

/**
 * Fails on any 5xx these servers gave (`serverErrors`) that `expected` does not accept: what
 * useTestServer checks, for files that start their servers themselves (restarts, several at once).
 */
export function expectNoServerErrors(servers: TestServer[], expected?: (line: string) => boolean): void {
  const unexpected = servers.flatMap((s) => s.serverErrors).filter((line) => !expected?.(line));
  expect(unexpected, `unexpected 5xx answers:\n${unexpected.join('\n')}`).toEqual([]);
}

/**
 * The usual server of a test file: started in a beforeAll, closed in an afterAll that then fails the
 * file on any unexpected 5xx (`serverErrors` less those `options.expectServerErrors` accepts). The
 * handle reads the running server, so `s.request(...)`, `s.url` or `s.login(...)` work in any test,
 * and in hooks registered after this call (vitest runs after-hooks in reverse: theirs run first).
 * An `env` function is read when the server starts, after the beforeAll hooks registered before it.
 */
export function useTestServer(target: DbTarget, env: Record<string, string> | (() => Record<string, string>) = {}, options: UseOptions = {}): TestServer {
  let running: TestServer | undefined;
  const get = (): TestServer => {
    if (!running) throw new Error('useTestServer: the server is not started yet (read it inside a test or a later hook)');
    return running;
  };
  beforeAll(async () => {
    running = await startServer(target, typeof env === 'function' ? env() : env, options);
  });
  afterAll(async () => {
    const s = running;
    if (!s) return;
    await s.close();
    expectNoServerErrors([s], options.expectServerErrors);
  });
  return {
    get app() {
      return get().app;
    },
    get url() {
      return get().url;
    },
    get config() {
      return get().config;
    },
    get storage() {
      return get().storage;
    },
    get serverErrors() {
      return get().serverErrors;
    },
    request: (method, urlPath, requestOptions) => get().request(method, urlPath, requestOptions),
    login: (username, password) => get().login(username, password),
    close: () => get().close(),
  };
}

/** The signed-link claim of a live sign-in (its user and link id), for signing links in tests. */
export async function linkClaimOf(s: TestServer, token: string): Promise<{ userId: number; linkId: string }> {
  const signedIn = await s.app.services.tokens.resolve(token);
  if (!signedIn) throw new Error('the token is not signed in');
  return { userId: signedIn.user.id, linkId: signedIn.linkId };
}

/** The payload of a signed link's _link parameter, decoded, and a function to re-sign-less forge it. */
export function linkPayload(url: string): { u: number; s: string; e: number; mac: string } {
  const raw = new URL(url, 'http://x').searchParams.get('_link') ?? '';
  const [payload, mac] = raw.split('.');
  return { ...(JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as { u: number; s: string; e: number }), mac: mac ?? '' };
}

/** A signed link with its payload changed but its MAC kept: what a forger can make. */
export function forgeLink(url: string, change: Partial<{ u: number; s: string; e: number }>): string {
  const { mac, ...payload } = linkPayload(url);
  const forged = Buffer.from(JSON.stringify({ ...payload, ...change })).toString('base64url');
  return url.replace(/_link=[^&]+/, `_link=${forged}.${mac}`);
}

/**
 * With RECORD_EXCHANGES=<file>, every JSON answer of /api and /sharepoint is appended to that file as one line
 * {method, route, url, status, body}: what tests/server/openapi-conformance.test.ts checks against
 * the API document. Off (no hook) otherwise.
 */
function recordExchanges(app: FastifyInstance): void {
  const file = process.env['RECORD_EXCHANGES'];
  if (file === undefined || file === '') return;
  app.addHook('onSend', async (request, reply, payload) => {
    const type = reply.getHeader('content-type');
    if (!/^\/(api|sharepoint)\//.test(request.url) || typeof type !== 'string' || !type.startsWith('application/json')) return payload;
    let text: string | undefined;
    if (typeof payload === 'string') text = payload;
    else if (Buffer.isBuffer(payload)) text = (reply.getHeader('content-encoding') === 'gzip' ? zlib.gunzipSync(payload) : payload).toString('utf8');
    if (text === undefined) return payload;
    const line = { method: request.method, route: request.routeOptions.url ?? null, url: request.url.slice(0, 300), status: reply.statusCode, body: text };
    fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
    return payload;
  });
}
