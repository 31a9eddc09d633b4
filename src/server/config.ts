import fs from 'node:fs';
import path from 'node:path';

/** Everything the server reads from the environment, checked once at start. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL connection string; undefined means the embedded SQLite file under dataDir. */
  databaseUrl: string | undefined;
  /** PostgreSQL schema to use instead of public (tests give each run its own). */
  databaseSchema: string | undefined;
  clientId: string;
  tokenTtlSeconds: number;
  logLevel: string;
  /** Folder holding <kind>.schema.json files. */
  schemasDir: string;
  /** Folder of the built client, served at '/'. */
  clientDir: string;
  /** The package folder (package.json, schemas). */
  rootDir: string;
  initialUser: InitialUser | undefined;
  /** Sign-in throttling: this many failures within the window lock the username for lockSeconds. */
  login: { maxFailures: number; windowSeconds: number; lockSeconds: number; userCeiling: number; maxUserDelaySeconds: number; perAddressPerMinute: number };
}

export interface InitialUser {
  username: string;
  password: string;
  project: string;
  vehicle: string;
}

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

function text(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

function initialUser(env: NodeJS.ProcessEnv): InitialUser | undefined {
  const names = ['INITIAL_USERNAME', 'INITIAL_PASSWORD', 'INITIAL_PROJECT', 'INITIAL_VEHICLE'] as const;
  const values = names.map((n) => text(env, n));
  const given = values.filter((v) => v !== undefined).length;
  if (given === 0) return undefined;
  if (given < names.length) {
    const missing = names.filter((_, i) => values[i] === undefined);
    throw new ConfigError(`set all of ${names.join(', ')} or none of them; missing ${missing.join(', ')}`);
  }
  const [username, password, project, vehicle] = values as string[];
  if ((password as string).length < 8) throw new ConfigError('INITIAL_PASSWORD must be at least 8 characters');
  return { username: username as string, password: password as string, project: project as string, vehicle: vehicle as string };
}

/** Reads and checks the configuration; throws ConfigError with a message a person can act on. */
export function loadConfig(env: NodeJS.ProcessEnv, rootDir: string): Config {
  const databaseUrl = text(env, 'DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL must be a PostgreSQL URL such as postgres://user@host:5432/db, got '${databaseUrl}'`);
  }
  const databaseSchema = text(env, 'DATABASE_SCHEMA');
  if (databaseSchema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(databaseSchema)) {
    throw new ConfigError('DATABASE_SCHEMA must be lower-case letters, digits and underscores');
  }
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${logLevel}'`);
  const clientId = text(env, 'CLIENT_ID') ?? DEFAULT_CLIENT_ID;
  if (!/^[\w-]{1,128}$/.test(clientId)) throw new ConfigError('CLIENT_ID must be 1-128 letters, digits, _ or -');
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: text(env, 'HOST') ?? '0.0.0.0',
    dataDir: path.resolve(rootDir, text(env, 'DATA_DIR') ?? 'data'),
    databaseUrl,
    databaseSchema,
    clientId,
    tokenTtlSeconds: integer(env, 'TOKEN_TTL_SECONDS', 604800, 60, 31536000),
    logLevel,
    schemasDir: path.resolve(rootDir, text(env, 'SCHEMAS_DIR') ?? 'schemas'),
    clientDir: path.resolve(rootDir, text(env, 'CLIENT_DIR') ?? 'dist/client'),
    rootDir,
    initialUser: initialUser(env),
    login: {
      maxFailures: integer(env, 'LOGIN_MAX_FAILURES', 5, 1, 1000),
      windowSeconds: integer(env, 'LOGIN_WINDOW_SECONDS', 900, 1, 86400),
      lockSeconds: integer(env, 'LOGIN_LOCK_SECONDS', 900, 1, 86400),
      userCeiling: integer(env, 'LOGIN_USER_CEILING', 20, 1, 100000),
      maxUserDelaySeconds: integer(env, 'LOGIN_USER_MAX_DELAY_SECONDS', 30, 1, 3600),
      perAddressPerMinute: integer(env, 'LOGIN_ADDRESS_PER_MINUTE', 30, 1, 100000),
    },
  };
}
