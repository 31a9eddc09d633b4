import type { Kind } from '../../src/shared/kind-types.js';

// Plausible records for the benchmarks, from a kind's schema alone (no kind-specific code).

const pad = (n: number): string => String(n).padStart(2, '0');

/** A plausible value for every property of a kind, from its schema; the date field falls on `day`. */
export function recordOf(kind: Kind, i: number, day: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const time = `${day} ${pad(i % 24)}:${pad((i * 7) % 60)}:${pad((i * 13) % 60)}`;
  kind.fields.forEach((field, f) => {
    const p = kind.schema.properties[field];
    if (!p || kind.readOnlyFields.has(field)) return;
    if (p.enum) out[field] = p.enum[i % p.enum.length];
    else if (p.format === 'datetime-text') out[field] = time;
    else if (p.type === 'number')
      out[field] = Math.round(Math.min(Number(p['maximum'] ?? 1e6), ((i * (f + 3)) % 977) + (i % 10) / 10 + (f % 7) / 100) * 100) / 100;
    else if (p.type === 'string') out[field] = `${field} ${i % 5000}`;
  });
  out[kind.meta.dateField] = time;
  return out;
}

/** The day (yyyy-MM-dd) `n` days after the UTC midnight `first`. */
export const dayAfter = (first: number, n: number): string => new Date(first + n * 86_400_000).toISOString().slice(0, 10);
