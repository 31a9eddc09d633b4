import fs from 'node:fs';
import path from 'node:path';
import type { KindRegistry, KindSchema } from '../shared/kind-types.js';
import { buildRegistry } from '../shared/kinds.js';
import { checkKindSchema, checkRegistry } from '../shared/schema-check.js';

export class SchemaError extends Error {}

/** Reads every <kind>.schema.json of a folder, as parsed JSON keyed by kind name. */
export function readSchemaFiles(dir: string): Record<string, unknown> {
  if (!fs.existsSync(dir)) throw new SchemaError(`The schemas folder ${dir} does not exist`);
  const out: Record<string, unknown> = {};
  for (const file of fs.readdirSync(dir).sort()) {
    if (!file.endsWith('.schema.json')) continue;
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    try {
      out[file.slice(0, -'.schema.json'.length)] = JSON.parse(text);
    } catch (e) {
      throw new SchemaError(`${file} is not valid JSON: ${(e as Error).message}`);
    }
  }
  if (Object.keys(out).length === 0) throw new SchemaError(`No *.schema.json files in ${dir}`);
  return out;
}

/** Checks schema files and builds the registry; throws SchemaError listing every problem found. */
export function registryFrom(files: Record<string, unknown>): KindRegistry {
  const problems = Object.entries(files).flatMap(([name, schema]) => checkKindSchema(name, schema));
  if (problems.length === 0) problems.push(...checkRegistry(files as Record<string, KindSchema>));
  if (problems.length > 0) throw new SchemaError(`The schema files have problems:\n  - ${problems.join('\n  - ')}`);
  return buildRegistry(files as Record<string, KindSchema>);
}

/** Loads the registry from the schema files on disk, as the server does at every start. */
export function loadRegistry(dir: string): KindRegistry {
  return registryFrom(readSchemaFiles(dir));
}
