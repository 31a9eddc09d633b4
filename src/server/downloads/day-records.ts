import { sql, type Kysely } from 'kysely';
import type { Kind } from '../../shared/kind-types.js';
import { recordTable } from '../db/database.js';
import type { Database } from '../db/types.js';
import { dayOfRecord } from '../records/store/days.js';
import { toRecord } from '../records/store/statements.js';
import type { RecordData } from '../records/validation.js';
import type { DateRange } from '../stats/stats-repository.js';

/** Rows per query: large enough to be few round trips, small enough to keep memory flat. */
export const PAGE_SIZE = 1000;

interface StoredRow {
  id: number;
  project_name: string;
  vehicle_no: string;
  day: string;
  data: string;
}

/**
 * Reads a project's records (every schema field; the package writer keeps the export fields) of a date range page by page, oldest first, so that a package of any
 * size streams with flat memory. Pages continue after the last (day, id) seen rather than
 * at an offset: each page is a short walk of the (project_name, record_date, id) index, and rows
 * written meanwhile cannot shift a page.
 */
export class DayRecords {
  constructor(private readonly db: Kysely<Database>) {}

  async *pages(kind: Kind, project: string, range: DateRange, pageSize = PAGE_SIZE): AsyncGenerator<RecordData[]> {
    let after: { date: string; id: number } | undefined;
    // The day under this instance's date field: record_date, or its own index (records/store/days.ts).
    const day = dayOfRecord(this.db, kind);
    for (;;) {
      let query = this.db
        .selectFrom(recordTable(kind))
        .select(['id', 'project_name', 'vehicle_no', day.as('day'), 'data'])
        .where('project_name', '=', project)
        .where(day, '>=', range.from)
        .where(day, '<=', range.to);
      if (after) {
        const { date, id } = after;
        query = query.where(sql<boolean>`(${day}, id) > (${date}, ${id})`);
      }
      const rows = (await query.orderBy(day).orderBy('id').limit(pageSize).execute()) as StoredRow[];
      if (rows.length > 0) yield rows.map((row) => toRecord(kind, row));
      if (rows.length < pageSize) return;
      const last = rows[rows.length - 1] as StoredRow;
      after = { date: last.day, id: Number(last.id) };
    }
  }
}
