import { sql, type RawBuilder } from 'kysely';
import { DATETIME_TEXT, toSortableDateTime } from '../../shared/formats.js';

/**
 * The escapes PostgreSQL's jsonb refuses in a record's JSON text: a lone UTF-16 surrogate and
 * \u0000 (refused at input, http/input-guard.ts, but old data or another tool may hold one).
 * Leftmost-longest, so an escaped backslash and a whole pair match as themselves and are put back
 * (\1); only the refused escapes are dropped.
 */
export const REFUSED_ESCAPES = String.raw`(\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})|\\u([dD][89a-fA-F][0-9a-fA-F]{2}|0000)`;

/**
 * PostgreSQL: a record's JSON text column as jsonb for filters, sorts and sums, never failing on a
 * refused escape (one such record failed the project's lists and day stats). Text without \u is
 * cast as it is. The record itself is read from the text, as stored.
 */
export function storedJsonb(column = 'data'): RawBuilder<unknown> {
  const text = sql.ref(column);
  return sql`cast(case when strpos(${text}, '\\u') = 0 then ${text} else regexp_replace(${text}, ${REFUSED_ESCAPES}, '\\1', 'g') end as jsonb)`;
}

// A record's day under a date field, computed by the database from its JSON text, so that an index
// on it is kept by every writer whatever its schemas say (docs/decisions/073). Both dialects give
// what toSortableDateTime gives for the first of `keys` (a JSON array: keysOf) the record holds.

export const SORTABLE_DATE = 'rtd_sortable_date';

/** SQLite: registered on every connection (db/database.ts); deterministic, so it may be indexed. */
export function sortableDate(data: unknown, keys: unknown): string {
  if (typeof data !== 'string' || typeof keys !== 'string') return '';
  try {
    const record = JSON.parse(data) as Record<string, unknown>;
    const holder = (JSON.parse(keys) as string[]).find((key) => Object.hasOwn(record, key));
    return holder === undefined ? '' : toSortableDateTime(record[holder]);
  } catch {
    return '';
  }
}

/** DATETIME_TEXT for PostgreSQL (\d there is any digit, not 0-9). */
const PG_DATETIME = DATETIME_TEXT.source.replaceAll(String.raw`\d`, '[0-9]');

/** PostgreSQL: created by a migration; IMMUTABLE so it may be indexed; reads the JSON as storedJsonb does. */
export const SORTABLE_DATE_FUNCTION = `CREATE OR REPLACE FUNCTION ${SORTABLE_DATE}(data text, keys text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
DECLARE j jsonb; k text; v jsonb; t text;
BEGIN
  IF strpos(data, '\\u') = 0 THEN j := data::jsonb;
  ELSE j := regexp_replace(data, '${REFUSED_ESCAPES}', '\\1', 'g')::jsonb;
  END IF;
  FOR k IN SELECT jsonb_array_elements_text(keys::jsonb) LOOP
    IF jsonb_typeof(j) = 'object' AND j ? k THEN v := j -> k; EXIT; END IF;
  END LOOP;
  IF v IS NULL OR jsonb_typeof(v) <> 'string' THEN RETURN ''; END IF;
  t := v #>> '{}';
  IF t = '' OR t !~ '${PG_DATETIME}' THEN RETURN ''; END IF;
  RETURN substr(t, 1, 10) || ' ' || CASE WHEN length(t) <= 10 THEN '00:00:00'
    WHEN length(substr(t, 12, 8)) = 5 THEN substr(t, 12, 8) || ':00' ELSE substr(t, 12, 8) END;
END
$fn$`;
