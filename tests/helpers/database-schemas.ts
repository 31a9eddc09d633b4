import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * PostgreSQL schemas of one test run. Each test server gets a fresh schema named after the run;
 * they are all dropped once, when the run ends (globalTeardown), never while other test files run:
 * Kysely's migrator inspects every schema of the database, and a schema dropped by another file at
 * that moment makes PostgreSQL answer 'schema ... does not exist'.
 */
export const RUN_ENV = 'RTD_TEST_RUN';

export function runPrefix(): string {
  return `t_${process.env[RUN_ENV] ?? 'local'}_`;
}

export function newSchemaName(): string {
  return `${runPrefix()}${randomBytes(5).toString('hex')}`;
}

/** Drops the schemas of this run (names start with the run's prefix). */
export async function dropRunSchemas(url: string, prefix: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>('SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)', [prefix]);
    for (const { nspname } of rows) await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
    return rows.length;
  } finally {
    await client.end();
  }
}
