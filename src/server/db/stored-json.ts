import { sql, type RawBuilder } from 'kysely';

/**
 * Escapes PostgreSQL's jsonb refuses in a record's JSON text: a lone UTF-16 surrogate (\ud800 not
 * followed by its low half, or a low half alone) and \u0000. JSON.stringify writes a lone
 * surrogate exactly so, and the API refuses both at input (http/input-guard.ts); old data or
 * another tool may still have stored one. Matched leftmost-longest, so an escaped backslash
 * (\\ud800 is the text '\ud800', not an escape) and a whole pair are matched as themselves and
 * put back (\1); only the refused escapes are dropped.
 */
export const REFUSED_ESCAPES = String.raw`(\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})|\\u([dD][89a-fA-F][0-9a-fA-F]{2}|0000)`;

/**
 * PostgreSQL: a record's JSON text column as jsonb, for filters, sorts and sums, that never fails
 * on a stored escape jsonb refuses (one such record made the project's filtered and
 * sorted lists and its day stats fail). Text without any \u escape, nearly all, is cast as it is;
 * the rest has the refused escapes dropped first. The record itself is read from the text, as stored.
 */
export function storedJsonb(column = 'data'): RawBuilder<unknown> {
  const text = sql.ref(column);
  return sql`cast(case when strpos(${text}, '\\u') = 0 then ${text} else regexp_replace(${text}, ${REFUSED_ESCAPES}, '\\1', 'g') end as jsonb)`;
}
