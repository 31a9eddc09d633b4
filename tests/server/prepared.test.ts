import SQLite from 'better-sqlite3';
import { Kysely, sql, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/server/db/database.js';
import { builtOnceQuery, Prepared, preparedName } from '../../src/server/db/database.js';
import { newSchemaName } from '../helpers/database-schemas.js';
import type { Database } from '../../src/server/db/types.js';

// The statements of every write are built once through Kysely and run with new values, since building
// them was a measurable share of a request (decision 017, `Prepared` in `src/server/db/database.ts`).

describe('a prepared statement', () => {
  let db: Kysely<Database>;
  let built = 0;
  beforeAll(async () => {
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) });
    await sql`CREATE TABLE record_generations (kind TEXT NOT NULL, project_name TEXT NOT NULL, gen INTEGER NOT NULL, PRIMARY KEY (kind, project_name))`.execute(
      db,
    );
  });
  afterAll(async () => db.destroy());

  const upsert = new Prepared(['project', 'kind'], (v) => {
    built++;
    return db
      .insertInto('record_generations')
      .values({ kind: v.kind, project_name: v.project, gen: 1 })
      .onConflict((oc) => oc.columns(['kind', 'project_name']).doUpdateSet({ gen: sql<number>`record_generations.gen + 1` }));
  });

  it('is built once and puts each value where its name was, whatever order the names are given in', async () => {
    await db.executeQuery(upsert.with({ kind: 'issue', project: 'P1' }));
    await db.executeQuery(upsert.with({ kind: 'issue', project: 'P1' }));
    await db.executeQuery(upsert.with({ project: 'P2', kind: 'poi' }));
    expect(built).toBe(1);
    const rows = await db.selectFrom('record_generations').selectAll().orderBy('kind').execute();
    expect(rows).toEqual([
      { kind: 'issue', project_name: 'P1', gen: 2 },
      { kind: 'poi', project_name: 'P2', gen: 1 },
    ]);
    // The constant stays a constant; the names become the values given.
    expect(upsert.with({ kind: 'k', project: 'p' }).parameters).toEqual(['k', 'p', 1]);
  });

  it('refuses a build that leaves out one of its values', () => {
    const missing = new Prepared(['kind', 'project'], (v) => db.selectFrom('record_generations').select('gen').where('kind', '=', v.kind));
    expect(() => missing.with({ kind: 'issue', project: 'P1' })).toThrow(/does not use project/);
  });
});

const pgUrl = process.env['TEST_DATABASE_URL'];

describe.skipIf(pgUrl === undefined)('on PostgreSQL', () => {
  let pgDb: Db;
  beforeAll(async () => {
    pgDb = await openDb({ databaseUrl: pgUrl, databaseSchema: newSchemaName(), dataDir: '/nonexistent' });
    await sql`CREATE TABLE record_generations (kind TEXT NOT NULL, project_name TEXT NOT NULL, gen INTEGER NOT NULL, PRIMARY KEY (kind, project_name))`.execute(
      pgDb.kysely,
    );
  });
  afterAll(async () => pgDb.kysely.destroy());

  it('prepares a statement built once by name on each connection, and any other query as it comes', async () => {
    const read = builtOnceQuery(pgDb.kysely.selectFrom('record_generations').select('gen').where('kind', '=', 'issue').compile());
    const name = preparedName(read.sql);
    expect(name).toMatch(/^rtd_\d+$/);
    const prepared = await pgDb.kysely.connection().execute(async (conn) => {
      await conn.executeQuery(read);
      await conn.executeQuery(read);
      await sql`SELECT gen FROM record_generations WHERE kind = ${'poi'}`.execute(conn);
      return (await sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements`.execute(conn)).rows;
    });
    expect(prepared).toEqual([{ name, statement: read.sql }]);
  });
});
