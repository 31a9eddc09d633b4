import type { Kind } from '../../src/shared/kind-types.js';

/** A valid value for every writable property of a kind, made from its schema alone. */
export function sampleRecord(kind: Kind, seed = 1): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of kind.fields) {
    if (kind.readOnlyFields.has(field)) continue;
    const p = kind.schema.properties[field];
    if (!p) continue;
    if (p.enum) out[field] = p.enum[seed % p.enum.length];
    else if (p.format === 'datetime-text') out[field] = `2026-11-${String(10 + (seed % 10)).padStart(2, '0')} 08:30:00`;
    else if (p.type === 'number') out[field] = Math.min(Number(p['maximum'] ?? 1000), 10 + seed + 0.5);
    else if (p.type === 'integer') out[field] = seed;
    else if (p.type === 'string') out[field] = `${field} ${seed} 测试`;
  }
  return out;
}

/** Fields of a kind whose schema type is number and that a client may write. */
export function numberFields(kind: Kind): string[] {
  return kind.fields.filter((f) => !kind.readOnlyFields.has(f) && kind.schema.properties[f]?.type === 'number');
}
