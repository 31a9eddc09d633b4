import type { Kind, KindRegistry, KindSchema } from './kind-types.js';
import { schemaHash } from './schema-evolution.js';

/** The name a kind's records are stored under: the file's stem, or the oldest of its earlier names. */
export const kindIdentity = (stem: string, schema: Pick<KindSchema, 'x-renamedFrom'>): string => schema['x-renamedFrom']?.at(-1) ?? stem;

/** Makes a Kind from a schema file (<stem>.schema.json) that has already passed the meta-schema check. */
export function toKind(stem: string, schema: KindSchema): Kind {
  const fields = Object.keys(schema.properties);
  return {
    name: kindIdentity(stem, schema),
    file: `${stem}.schema.json`,
    schema,
    meta: schema['x-kind'],
    fields,
    readOnlyFields: new Set(fields.filter((f) => schema.properties[f]?.readOnly === true)),
    exportFields: fields.filter((f) => schema.properties[f]?.['x-export'] !== false),
    // Old property names -> the property that holds their values now.
    renamed: new Map(Object.entries(schema.properties).flatMap(([field, prop]) => (prop['x-renamedFrom'] ?? []).map((old) => [old, field] as const))),
    hash: schemaHash(schema),
  };
}

/** Builds the registry of kinds from files keyed by stem, keyed by kind name, in a stable (sorted) order. */
export function buildRegistry(schemas: Record<string, KindSchema>): KindRegistry {
  const kinds = Object.keys(schemas).map((stem) => toKind(stem, schemas[stem] as KindSchema));
  return new Map(kinds.sort((a, b) => a.name.localeCompare(b.name)).map((kind) => [kind.name, kind] as const));
}

/** The kind whose list screen is at a route such as '/data/issue', if any. */
export function kindByRoute(registry: KindRegistry, route: string): Kind | undefined {
  return [...registry.values()].find((kind) => kind.meta.route === route);
}

/** The JSON types a property accepts, as a list. */
export function propertyTypes(kind: Kind, field: string): string[] {
  return [kind.schema.properties[field]?.type ?? []].flat();
}
