/** A timestamp in the wire contract's 'yyyy-MM-dd HH:mm:ss', the server's local time as RuoYi writes it; unreadable: null. */
export function contractTime(value: string | Date | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return null;
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

export const CONTRACT_TIME_SCHEMA = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$',
  description: "'yyyy-MM-dd HH:mm:ss', the server's local time",
  examples: ['2026-11-21 08:30:00'],
} as const;
