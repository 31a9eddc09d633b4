import type { Kind, KindRegistry, KindSchema } from '../../shared/kind-types';
import { buildRegistry } from '../../shared/kinds';

// The schema files themselves, bundled into the record screens' chunk (never the entry).
const files = import.meta.glob<KindSchema>('../../../schemas/*.schema.json', { eager: true, import: 'default' });

function kindName(file: string): string {
  return file.slice(file.lastIndexOf('/') + 1, -'.schema.json'.length);
}

/** Every record kind, from schemas/*.schema.json, keyed by kind name. */
export const registry: KindRegistry = buildRegistry(Object.fromEntries(Object.entries(files).map(([file, schema]) => [kindName(file), schema])));

/** The kind whose list screen is at this route (such as '/data/issue'). */
export function kindByRoute(route: string): Kind | undefined {
  for (const kind of registry.values()) if (kind.meta.route === route) return kind;
  return undefined;
}

/** Replaces {id} in a schema text. */
export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (m, key: string) => (key in values ? String(values[key]) : m));
}
