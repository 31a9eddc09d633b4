/**
 * Text formats for dates and times as the wire contract sends them
 * ('yyyy-MM-dd', 'yyyy-MM-dd HH:mm:ss', ISO with T). Shared so the server's ajv
 * and the client's form validator agree on what a valid value is.
 */
const DATE = String.raw`\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])`;
const TIME = String.raw`(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,6})?)?`;
const ZONE = String.raw`(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?`;

/** A date alone, or a date with a time; the empty string means "not set". */
export const DATETIME_TEXT = new RegExp(`^(?:${DATE}(?:[ T]${TIME}${ZONE})?)?$`);
/** A date alone ('yyyy-MM-dd'). */
export const DATE_TEXT = new RegExp(`^${DATE}$`);

/** Format names our schema files may use in `format`, with their checks. */
export const customFormats: Record<string, RegExp> = {
  'datetime-text': DATETIME_TEXT,
  'date-text': new RegExp(`^(?:${DATE})?$`),
};

/** What a person is told when a value does not match a format. */
export const formatHints: Record<string, string> = {
  'datetime-text': 'a date like 2024-01-31 or a date and time like 2024-01-31 08:30:00',
  'date-text': 'a date like 2024-01-31',
};

/**
 * Turns any accepted date text into the sortable 'yyyy-MM-dd HH:mm:ss' form, or ''
 * for a missing or unreadable value. Time zones are dropped: road-test times are
 * local wall-clock times, as the original backend stored them.
 */
export function toSortableDateTime(value: unknown): string {
  if (typeof value !== 'string' || !DATETIME_TEXT.test(value) || value === '') return '';
  const date = value.slice(0, 10);
  const time = value.length > 10 ? value.slice(11, 19) : '00:00:00';
  return `${date} ${time.length === 5 ? `${time}:00` : time}`;
}
