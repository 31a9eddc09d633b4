import fs from 'node:fs';
import path from 'node:path';
import type { NewUser } from './users/user-repository.js';

/** Everything the server reads from the environment, checked once at start (loadConfig). */
export type Config = ReturnType<typeof loadConfig>;

export class ConfigError extends Error {}

/** Loads <root>/.env into process.env if it exists; variables already set win. */
export function loadDotEnv(rootDir: string): void {
  const file = path.join(rootDir, '.env');
  if (fs.existsSync(file)) process.loadEnvFile(file);
}

/** The client id of the original backend's seeded 'pc' client, which field apps send by default. */
export const DEFAULT_CLIENT_ID = 'e5cd7e4891bf95d1d19206ce24a7b32e';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number between ${min} and ${max}, got '${raw}'`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** A whole-number setting: its variable, default, bounds, and its unit's multiplier (seconds to ms, MB to bytes). */
type Setting = readonly [variable: string, fallback: number, min: number, max: number, scale?: number];

/** The whole-number settings, grouped as Config holds them. */
const NUMBERS = {
  port: ['PORT', 8080, 0, 65535],
  tokenTtlSeconds: ['TOKEN_TTL_SECONDS', 604800, 60, 31536000],
  /** Bytes of list answers each instance remembers while their records do not change; 0 turns it off. */
  listCacheBytes: ['LIST_CACHE_MB', 32, 0, 65536, 1024 * 1024],
  /** The most bytes of records one list page may carry: a larger page is refused with the page size that fits. */
  listMaxPageBytes: ['LIST_MAX_PAGE_MB', 64, 1, 4096, 1024 * 1024],
  /** Day packages and day reports one user may download at once from one instance (a 429 past it). */
  downloadsPerUser: ['DOWNLOADS_PER_USER', 1, 1, 1000],
} satisfies Record<string, Setting>;
const TIMEOUTS = {
  headersMs: ['HEADERS_TIMEOUT_SECONDS', 20, 1, 600, 1000],
  /** A request body other than an upload must arrive whole within this. */
  bodyMs: ['BODY_TIMEOUT_SECONDS', 30, 1, 3600, 1000],
  /** A connection silent either way this long is closed. */
  idleMs: ['IDLE_TIMEOUT_SECONDS', 120, 1, 3600, 1000],
} satisfies Record<string, Setting>;
const UPLOADS = {
  maxFileBytes: ['MAX_FILE_BYTES', 20 * 1024 ** 3, 1024, 2 ** 50],
  sessionsPerUser: ['UPLOAD_SESSIONS_PER_USER', 20, 1, 10000],
  /** Space kept free on the files volume: an upload that would eat into it is refused (507). */
  minFreeBytes: ['MIN_FREE_DISK_BYTES', 1024 ** 3, 0, 2 ** 50],
  /** An upload slower than this, averaged over rateWindowMs, is cut (the session stays resumable). */
  minBytesPerSecond: ['UPLOAD_MIN_BYTES_PER_SECOND', 1024, 0, 2 ** 30],
  rateWindowMs: ['UPLOAD_RATE_WINDOW_SECONDS', 60, 1, 3600, 1000],
  /** How often expired sessions and orphaned temporary files are swept, and how old an orphan must be. */
  sweepEveryMs: ['SWEEP_INTERVAL_SECONDS', 600, 1, 86400, 1000],
  orphanAgeMs: ['ORPHAN_AGE_SECONDS', 3600, 1, 30 * 86400, 1000],
} satisfies Record<string, Setting>;
/**
 * Sign-in throttling (auth/login-throttle.ts): maxFailures within the window lock a username at one
 * address for lockSeconds; past userCeiling from all addresses, attempts are spaced out, never locked.
 */
const LOGIN = {
  maxFailures: ['LOGIN_MAX_FAILURES', 5, 1, 1000],
  windowSeconds: ['LOGIN_WINDOW_SECONDS', 900, 1, 86400],
  lockSeconds: ['LOGIN_LOCK_SECONDS', 900, 1, 86400],
  userCeiling: ['LOGIN_USER_CEILING', 20, 1, 100000],
  maxUserDelaySeconds: ['LOGIN_USER_MAX_DELAY_SECONDS', 30, 1, 3600],
  perAddressPerMinute: ['LOGIN_ADDRESS_PER_MINUTE', 30, 1, 100000],
  /** A device cookie set at a sign-in stays valid this long: it skips the many-address slow-down and its password check goes first (0: none). */
  deviceSeconds: ['LOGIN_DEVICE_DAYS', 90, 0, 400, 86400],
} satisfies Record<string, Setting>;

/** Every whole-number setting, by where Config holds it ('' for its top level). */
export const WHOLE_NUMBERS = { '': NUMBERS, timeouts: TIMEOUTS, uploads: UPLOADS, login: LOGIN } as Record<string, Record<string, Setting>>;

function numbers<K extends string>(env: NodeJS.ProcessEnv, table: Record<K, Setting>): Record<K, number> {
  const read = ([name, fallback, min, max, scale = 1]: Setting): number => integer(env, name, fallback, min, max) * scale;
  return Object.fromEntries(Object.entries<Setting>(table).map(([key, setting]) => [key, read(setting)])) as Record<K, number>;
}

const text = (env: NodeJS.ProcessEnv, name: string): string | undefined => env[name]?.trim() || undefined;

/** A text setting of the shape given, else refused: '<name> must be <what it must be>'. */
function matching(env: NodeJS.ProcessEnv, name: string, shape: RegExp, mustBe: (raw: string) => string): string | undefined {
  const raw = text(env, name);
  if (raw !== undefined && !shape.test(raw)) throw new ConfigError(`${name} must be ${mustBe(raw)}`);
  return raw;
}

function initialUser(env: NodeJS.ProcessEnv): Omit<NewUser, 'nickName'> | undefined {
  const names = ['INITIAL_USERNAME', 'INITIAL_PASSWORD', 'INITIAL_PROJECT', 'INITIAL_VEHICLE'] as const;
  const values = names.map((n) => text(env, n));
  const missing = names.filter((_, i) => values[i] === undefined);
  if (missing.length === names.length) return undefined;
  if (missing.length > 0) throw new ConfigError(`set all of ${names.join(', ')} or none of them; missing ${missing.join(', ')}`);
  const [username, password, project, vehicle] = values as [string, string, string, string];
  if (password.length < 8) throw new ConfigError('INITIAL_PASSWORD must be at least 8 characters');
  return { username, password, project, vehicle };
}

function trustProxy(env: NodeJS.ProcessEnv): boolean | number | string {
  const raw = text(env, 'TRUST_PROXY');
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.every((p) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(p) || ['loopback', 'linklocal', 'uniquelocal'].includes(p))) return parts.join(',');
  throw new ConfigError(`TRUST_PROXY must be false, true, a number of proxy hops, or a comma-separated list of proxy addresses or CIDR ranges, got '${raw}'`);
}

const isHttp = (url: URL): boolean => url.protocol === 'http:' || url.protocol === 'https:';

function publicUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = text(env, 'PUBLIC_URL');
  if (raw === undefined) return undefined;
  if (!URL.canParse(raw)) throw new ConfigError(`PUBLIC_URL must be an absolute URL such as https://roadtest.example.com, got '${raw}'`);
  const url = new URL(raw);
  if (!isHttp(url)) throw new ConfigError('PUBLIC_URL must start with http:// or https://');
  if (url.search !== '' || url.hash !== '') throw new ConfigError('PUBLIC_URL must not have a query or a fragment');
  return `${url.origin}${url.pathname.replace(/\/$/, '')}`;
}

function corsOrigins(env: NodeJS.ProcessEnv): string[] {
  const raw = text(env, 'CORS_ORIGINS');
  if (raw === undefined) return [];
  return raw.split(',').map((origin) => {
    const o = origin.trim();
    if (!URL.canParse(o)) throw new ConfigError(`CORS_ORIGINS must be a comma-separated list of origins such as https://app.example.com, got '${o}'`);
    const url = new URL(o);
    if (!isHttp(url) || url.origin !== o.replace(/\/$/, '')) {
      throw new ConfigError(`CORS_ORIGINS entries must be origins only (scheme, host and port, no path), got '${o}'`);
    }
    return url.origin;
  });
}

/** PEM files: the server speaks HTTPS itself (phones record audio and video only on a secure origin). */
function tls(env: NodeJS.ProcessEnv, rootDir: string): { certFile: string; keyFile: string; cert: Buffer; key: Buffer } | undefined {
  const certFile = text(env, 'TLS_CERT');
  const keyFile = text(env, 'TLS_KEY');
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) throw new ConfigError('set both TLS_CERT and TLS_KEY (PEM files) to serve HTTPS, or neither');
  const read = (name: string, file: string): Buffer => {
    const abs = path.resolve(rootDir, file);
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(abs);
    } catch (e) {
      throw new ConfigError(`${name} cannot be read: ${abs} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
    if (!bytes.toString('latin1').includes('-----BEGIN ')) throw new ConfigError(`${name} must be a PEM file (it has no -----BEGIN line): ${abs}`);
    return bytes;
  };
  return { certFile, keyFile, cert: read('TLS_CERT', certFile), key: read('TLS_KEY', keyFile) };
}

/**
 * What one user's, and one project's, open upload sessions may have announced but not yet sent (507
 * past it): by default one largest file per user and four per project, released after an idle hour.
 */
function reservations(env: NodeJS.ProcessEnv, maxFileBytes: number) {
  const reservedPerUserBytes = integer(env, 'UPLOAD_RESERVED_PER_USER_BYTES', maxFileBytes, 0, 2 ** 50);
  const reservedPerProjectBytes = integer(env, 'UPLOAD_RESERVED_PER_PROJECT_BYTES', Math.max(reservedPerUserBytes, 4 * maxFileBytes), 0, 2 ** 50);
  if (reservedPerProjectBytes < reservedPerUserBytes) {
    throw new ConfigError(
      `UPLOAD_RESERVED_PER_PROJECT_BYTES (${reservedPerProjectBytes}) must be at least UPLOAD_RESERVED_PER_USER_BYTES (${reservedPerUserBytes})`,
    );
  }
  return { reservedPerUserBytes, reservedPerProjectBytes, reservationIdleMs: integer(env, 'UPLOAD_RESERVATION_IDLE_SECONDS', 3600, 60, 30 * 86400) * 1000 };
}

/** Reads and checks the configuration; throws ConfigError with a message a person can act on. */
export function loadConfig(env: NodeJS.ProcessEnv, rootDir: string) {
  const databaseUrl = matching(env, 'DATABASE_URL', /^postgres(ql)?:\/\//, (raw) => `a PostgreSQL URL such as postgres://user@host:5432/db, got '${raw}'`);
  const databaseSchema = matching(env, 'DATABASE_SCHEMA', /^[a-z_][a-z0-9_]{0,62}$/, () => 'lower-case letters, digits and underscores');
  const logLevel = matching(env, 'LOG_LEVEL', new RegExp(`^(${LOG_LEVELS.join('|')})$`), (raw) => `one of ${LOG_LEVELS.join(', ')}, got '${raw}'`) ?? 'info';
  const clientId = matching(env, 'CLIENT_ID', /^[\w-]{1,128}$/, () => '1-128 letters, digits, _ or -') ?? DEFAULT_CLIENT_ID;
  const uploads = numbers(env, UPLOADS);
  return {
    ...numbers(env, NUMBERS),
    host: text(env, 'HOST') ?? '0.0.0.0',
    dataDir: path.resolve(rootDir, text(env, 'DATA_DIR') ?? 'data'),
    databaseUrl, // undefined: the embedded SQLite file under dataDir
    databaseSchema, // instead of public (tests give each run its own)
    clientId,
    logLevel,
    schemasDir: path.resolve(rootDir, text(env, 'SCHEMAS_DIR') ?? 'schemas'),
    clientDir: path.resolve(rootDir, text(env, 'CLIENT_DIR') ?? 'dist/client'),
    rootDir,
    initialUser: initialUser(env),
    trustProxy: trustProxy(env), // whose X-Forwarded-* headers are believed
    publicUrl: publicUrl(env), // for URLs the server hands out (upload sessions); else the request's host
    corsOrigins: corsOrigins(env), // other front ends' origins; empty: no cross-origin access
    tls: tls(env, rootDir),
    timeouts: numbers(env, TIMEOUTS),
    uploads: { ...uploads, ...reservations(env, uploads.maxFileBytes) },
    // How long a video analysis worker's claim on an issue holds unless renewed.
    analysis: { leaseSeconds: integer(env, 'ANALYSIS_LEASE_SECONDS', 120, 1, 86400) },
    // PostgreSQL: whether an instance may become the sole writer (decision 030); off behind a pooler that shares sessions.
    soleWriter: !['off', 'false'].includes(matching(env, 'SOLE_WRITER', /^(on|true|off|false)$/, (raw) => `on or off, got '${raw.slice(0, 40)}'`) ?? 'on'),
    login: numbers(env, LOGIN),
  };
}
