import { recordTable, type Db } from '../../db/database.js';
import type { Kind } from '../../../shared/kind-types.js';
import { ensureDayCounts, KnownGenerations } from './days.js';
import { PostgresReads, PostgresWrites } from './postgres.js';
import { SOLE_WRITER_TIMES, SoleWriter } from './sole-writer.js';
import { SqliteReads, SqliteWrites } from './sqlite.js';
import { statementsOf } from './statements.js';
import type { RecordStore } from './types.js';

/**
 * Opens the record store once, when the server starts (docs/decisions/048), after building the
 * day counts of a kind met for the first time (docs/decisions/017); on PostgreSQL the sole writer
 * claims its lock (docs/decisions/030) where `soleWriter` (SOLE_WRITER) allows, and `onSoleWriterError` hears when
 * its lock connection fails. The caller closes `sole` (undefined when none) with the server.
 */
export async function openRecordStore(
  db: Db,
  kinds: Iterable<Kind>,
  options: { soleWriter: boolean; onSoleWriterError?: (err: unknown) => void },
): Promise<{ store: RecordStore; sole: SoleWriter | undefined }> {
  for (const kind of kinds) await ensureDayCounts(db.kysely, kind.name, recordTable(kind));
  const statements = statementsOf(db.kysely, db.dialect);
  if (db.dialect === 'sqlite') {
    if (db.writeNow === undefined) throw new Error('A SQLite database opened without writeNow (db/database.ts openDb opens it with it)');
    const store = { reads: new SqliteReads(db.kysely, statements, db.readNow), writes: new SqliteWrites(db.kysely, statements, db.writeNow) };
    return { store, sole: undefined };
  }
  const sole = db.newClient === undefined || !options.soleWriter ? undefined : new SoleWriter(db.newClient, SOLE_WRITER_TIMES, options.onSoleWriterError);
  await sole?.start();
  const writing = { sole, known: new KnownGenerations() };
  return { store: { reads: new PostgresReads(db.kysely, statements, writing), writes: new PostgresWrites(db.kysely, statements, writing) }, sole };
}
