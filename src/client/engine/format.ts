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

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}

/**
 * Formats a value for a list card as the schema's card layout asks; null when there is nothing
 * to show (the card then shows the line's fallback, or leaves an optional line out).
 */
export function formatCardValue(value: unknown, fmt: CardFormat | undefined): string | null {
  if (isEmpty(value)) return null;
  switch (fmt) {
    case 'datetime-minute': {
      const d = parseDateText(value);
      return d ? format(d, 'yyyy-MM-dd HH:mm') : null;
    }
    case 'date': {
      const d = parseDateText(value);
      return d ? format(d, 'yyyy-MM-dd') : null;
    }
    case 'time': {
      const d = parseDateText(value);
      return d ? format(d, 'HH:mm:ss') : null;
    }
    case 'minutes': {
      const n = toNumber(value);
      return n === null ? null : `${Math.round(n)} min`;
    }
    case 'hours-minutes': {
      const n = toNumber(value);
      if (n === null) return null;
      const total = Math.max(0, Math.round(n));
      return `${Math.floor(total / 60)}h ${total % 60}m`;
    }
    case 'km': {
      const n = toNumber(value);
      return n === null ? null : `${n} km`;
    }
    case 'km-1': {
      const n = toNumber(value);
      return n === null ? null : `${n.toFixed(1)} km`;
    }
    case 'clamp-2':
    case undefined:
      return String(value);
  }
}
