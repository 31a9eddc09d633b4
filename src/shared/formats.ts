// Text formats for dates and times as the wire contract sends them ('yyyy-MM-dd', 'yyyy-MM-dd HH:mm:ss',
// ISO with T), shared so the server's ajv and the client's form validator agree.
const DATE = String.raw`\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])`;
const TIME = String.raw`(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,6})?)?`;
const ZONE = String.raw`(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?`;

/** A date alone, or a date with a time; the empty string means "not set". */
export const DATETIME_TEXT = new RegExp(`^(?:${DATE}(?:[ T]${TIME}${ZONE})?)?$`);
export const DATE_TEXT = new RegExp(`^${DATE}$`);

const DATE_OR_EMPTY = new RegExp(`^(?:${DATE})?$`);

/** True when the date part of a text (yyyy-MM-dd...) is a real calendar day: the pattern lets 2026-02-30 through. */
export function isCalendarDate(text: string): boolean {
  if (text.length < 10) return true;
  const [y, m, d] = [Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10))];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** Format names our schema files may use in `format`, with their checks (pattern and calendar). */
export const customFormats: Record<string, (text: string) => boolean> = {
  'datetime-text': (text) => DATETIME_TEXT.test(text) && isCalendarDate(text),
  'date-text': (text) => DATE_OR_EMPTY.test(text) && isCalendarDate(text),
};

/** A date or date-time in any accepted form in the contract's ('yyyy-MM-dd', 'yyyy-MM-dd HH:mm:ss'); anything else as it is, for the validator to refuse. */
export function toContractDateText(value: unknown, format: string | undefined): unknown {
  if (typeof value !== 'string' || value === '' || !DATETIME_TEXT.test(value)) return value;
  if (format === 'date-text' || value.length === 10) return value.slice(0, 10);
  return toSortableDateTime(value);
}

/** What a person is told when a value does not match a format. */
export const formatHints: Record<string, string> = {
  'datetime-text': 'a date like 2024-01-31 or a date and time like 2024-01-31 08:30:00',
  'date-text': 'a date like 2024-01-31',
};

/** The same in Chinese, for the server's refusals to a phone in Chinese (docs/decisions/045). */
export const formatHintsZh: Record<string, string> = {
  'datetime-text': '日期（如 2024-01-31）或日期和时间（如 2024-01-31 08:30:00）',
  'date-text': '日期（如 2024-01-31）',
};

/** Any accepted date text in the sortable 'yyyy-MM-dd HH:mm:ss' form, or ''; zones are dropped: road-test times are local wall-clock times. */
export function toSortableDateTime(value: unknown): string {
  if (typeof value !== 'string' || !DATETIME_TEXT.test(value) || value === '') return '';
  const date = value.slice(0, 10);
  const time = value.length > 10 ? value.slice(11, 19) : '00:00:00';
  return `${date} ${time.length === 5 ? `${time}:00` : time}`;
}
