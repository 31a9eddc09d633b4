import { DATETIME_TEXT, toSortableDateTime } from '../../shared/formats.js';
import { REFUSED_ESCAPES } from './stored-json.js';

// A record's day under a date field, computed by the database from the record's JSON text, so that
// an index on it is kept by every writer, whatever date field that writer's schemas name
// (docs/decisions/073). Both dialects give what toSortableDateTime gives for the value of the first
// of `keys` (a JSON array: a property's keysOf) that the record holds.

/** The function's name in both dialects. */
export const SORTABLE_DATE = 'rtd_sortable_date';

/** SQLite: the function itself, registered on every connection (db/database.ts); deterministic, so it may be indexed. */
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

/** The same test as DATETIME_TEXT for PostgreSQL's regular expressions (\d there is any digit, not 0-9). */
const PG_DATETIME = DATETIME_TEXT.source.replaceAll(String.raw`\d`, '[0-9]');

/**
 * PostgreSQL: the function, created by a migration; IMMUTABLE so that it may be indexed. The JSON
 * text is read as storedJsonb reads it (db/stored-json.ts): escapes jsonb refuses are dropped first.
 */
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
