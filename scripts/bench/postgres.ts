import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL the benches use when asked to (`--db postgres`): each run in a schema of its own. */
export const BENCH_PG_URL = process.env['BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh schema name for one bench run (the server creates the schema on start). */
export const benchSchema = (bench: string): string => `bench_${bench}_${randomBytes(4).toString('hex')}`;

/** Drops a bench run's schema and everything in it. */
export async function dropBenchSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
