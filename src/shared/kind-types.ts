import type { KindSchema } from './generated/kind-schema.js';

// The shapes our code reads from a kind's schema file, made from the meta-schema (meta-schema.ts) by `npm run gen:types`.

export type { KindSchema };
/** The `x-kind` block of a schema file: how a record kind is listed, titled and served. */
export type KindMeta = KindSchema['x-kind'];
/** One of a schema's properties, as code may meet it before the meta-check: any keyword left out, any type named. */
export type KindProperty = { [K in keyof SchemaProperty as K extends 'type' ? never : K]?: SchemaProperty[K] } & { type?: string | string[] };
type SchemaProperty = KindSchema['properties'][string];
export type CardFormat = NonNullable<KindMeta['card']['lines'][number]['format']>;
export type LocationMeta = NonNullable<KindMeta['locations']>[number];
export type PackageMeta = NonNullable<KindMeta['packages']>[number];
export type AnalysisMeta = NonNullable<KindMeta['analysis']>;
export type WorkspaceSessionMeta = NonNullable<NonNullable<KindMeta['workspace']>['session']>;

/** A record kind; its name, its identity in storage, is the file's stem or a renamed kind's oldest name, so its records follow it (decision 059). */
export interface Kind {
  name: string;
  file: string;
  schema: KindSchema;
  meta: KindMeta;
  fields: string[];
  readOnlyFields: Set<string>;
  exportFields: string[];
  renamed: ReadonlyMap<string, string>;
  /** A short hash of the schema file as served: records remember the one they were saved under. */
  hash: string;
}

export type KindRegistry = ReadonlyMap<string, Kind>;
