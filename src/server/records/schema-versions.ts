import { sql } from 'kysely';
import type { KindRegistry, KindSchema } from '../../shared/kind-types.js';
import { recordTable, type Db } from '../db/database.js';
import { filedField, lastServedSchema } from './store/days.js';
import type { RecordTableName } from '../db/types.js';

/**
 * Run at every start, after the migrations (docs/decisions/034): keeps each kind's schema file in
 * kind_schemas (record_history.schema_hash names it), says when a kind's dateField changed (nothing
 * is re-filed, docs/decisions/073), and names record tables of kinds without a schema file now.
 */
export async function rememberSchemas(db: Db, registry: KindRegistry): Promise<{ info: string[]; warnings: string[] }> {
  const report = { info: [] as string[], warnings: [] as string[] };
  for (const kind of registry.values()) {
    await db.kysely.transaction().execute(async (trx) => {
      const now = new Date().toISOString();
      const last = await lastServedSchema(trx, kind.name);
      await trx
        .insertInto('kind_schemas')
        .values({ hash: kind.hash, kind: kind.name, schema: JSON.stringify(kind.schema), first_served_at: now, last_served_at: now })
        .onConflict((oc) => oc.column('hash').doUpdateSet({ last_served_at: now }))
        .execute();
      if (last === undefined || last.hash === kind.hash) return;
      report.info.push(`${kind.file} changed (schema ${last.hash} -> ${kind.hash}); records saved under the earlier version stay as they were`);
      const before = (JSON.parse(last.schema) as KindSchema)['x-kind'].dateField;
      if (before === kind.meta.dateField) return;
      report.info.push(
        `${kind.name}: x-kind.dateField changed from ${before} to ${kind.meta.dateField}; records stay filed under ${filedField(db.kysely, kind)}, and this server lists, counts and packages them by ${kind.meta.dateField}`,
      );
    });
  }
  for (const [table, rows] of await orphanTables(db, registry)) {
    report.warnings.push(
      `${table} holds ${rows} records of kind '${table.slice(4)}', which has no schema file now: nobody can reach them. They are kept; put ${table.slice(4)}.schema.json back to serve them again.`,
    );
  }
  return report;
}

/** Record tables (rec_<kind>) with rows whose kind has no schema file now. */
async function orphanTables(db: Db, registry: KindRegistry): Promise<[RecordTableName, number][]> {
  const served = new Set([...registry.values()].map((k) => recordTable(k)));
  const tables = await db.kysely.introspection.getTables();
  const out: [RecordTableName, number][] = [];
  for (const t of tables) {
    if (!/^rec_[a-z][a-z0-9]*$/.test(t.name) || served.has(t.name as RecordTableName)) continue;
    if (db.dialect === 'postgres' && t.schema !== (db.schema ?? 'public')) continue;
    const table = t.name as RecordTableName;
    const row = await sql<{ n: string | number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db.kysely);
    const n = Number(row.rows[0]?.n ?? 0);
    if (n > 0) out.push([table, n]);
  }
  return out;
}

/**
 * The paths the kinds were served under before (kind_schemas) that no kind uses now, each to the one that replaced it:
 * old phones and links use them (decision 059).
 */
export async function earlierPaths(db: Db, registry: KindRegistry): Promise<{ api: Map<string, string>; routes: Map<string, string> }> {
  const kinds = [...registry.values()];
  const current = new Set(kinds.flatMap((k) => [k.meta.apiPath, k.meta.route]));
  const out = { api: new Map<string, string>(), routes: new Map<string, string>() };
  const rows = await db.kysely.selectFrom('kind_schemas').select(['kind', 'schema']).orderBy('last_served_at').execute();
  for (const row of rows) {
    const kind = registry.get(row.kind);
    if (kind === undefined) continue;
    const { apiPath, route } = (JSON.parse(row.schema) as KindSchema)['x-kind'];
    if (!current.has(apiPath)) out.api.set(apiPath, kind.meta.apiPath);
    if (!current.has(route)) out.routes.set(route, kind.meta.route);
  }
  return out;
}
