import { format, isValid, parse } from 'date-fns';
import type { CardFormat } from '../../shared/kind-types';

const PATTERNS = ['yyyy-MM-dd HH:mm:ss', "yyyy-MM-dd'T'HH:mm:ss", 'yyyy-MM-dd HH:mm', "yyyy-MM-dd'T'HH:mm", 'yyyy-MM-dd'];

/** Reads the date texts records carry ('yyyy-MM-dd', with ' HH:mm[:ss]' or 'T'), as local time. */
export function parseDateText(value: unknown): Date | null {
  if (typeof value !== 'string' || value === '') return null;
  const text = value.replace(/(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/, '');
  for (const pattern of PATTERNS) {
    const date = parse(text, pattern, new Date());
    if (isValid(date)) return date;
  }
  return null;
}

const isEmpty = (value: unknown): boolean => value === undefined || value === null || value === '';

function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}

/** The card formats that show a date, by their date-fns pattern, and those that show a number, by how. */
const DATE_CARD = { 'datetime-minute': 'yyyy-MM-dd HH:mm', date: 'yyyy-MM-dd', time: 'HH:mm:ss' } as const;
const NUMBER_CARD: Record<Exclude<CardFormat, keyof typeof DATE_CARD | 'clamp-2'>, (n: number) => string> = {
  minutes: (n) => `${Math.round(n)} min`,
  'hours-minutes': (n) => {
    const total = Math.max(0, Math.round(n));
    return `${Math.floor(total / 60)}h ${total % 60}m`;
  },
  km: (n) => `${n} km`,
  'km-1': (n) => `${n.toFixed(1)} km`,
};

/** A value as the kind's card layout formats it; null when there is nothing to show (the line's fallback, or no optional line). */
export function formatCardValue(value: unknown, fmt: CardFormat | undefined): string | null {
  if (isEmpty(value)) return null;
  if (fmt === undefined || fmt === 'clamp-2') return String(value);
  if (fmt in DATE_CARD) {
    const d = parseDateText(value);
    return d ? format(d, DATE_CARD[fmt as keyof typeof DATE_CARD]) : null;
  }
  const n = toNumber(value);
  return n === null ? null : NUMBER_CARD[fmt as keyof typeof NUMBER_CARD](n);
}
