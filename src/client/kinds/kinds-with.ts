import type { Kind } from '../../shared/kind-types';
import { registry } from '../engine/registry';

/** The kinds with an x-kind entry (`pick` reads it), each with its entry, in the entries' order. */
export function kindsWith<T extends { order: number }>(pick: (kind: Kind) => T | undefined): { kind: Kind; entry: T }[] {
  const found = [...registry.values()].map((kind) => ({ kind, entry: pick(kind) }));
  return found.filter((k): k is { kind: Kind; entry: T } => k.entry !== undefined).sort((a, b) => a.entry.order - b.entry.order);
}
