import type { KindRegistry, KindSchema } from '../shared/kind-types.js';
import { buildRegistry } from '../shared/kinds.js';
import { checkSchemaFolder, checkSchemas, formatProblem, readSchemaFolder, refusal } from './schema-check/folder.js';

export class SchemaError extends Error {}

function readFolder<T extends { count: number }>(dir: string, read: (dir: string) => T): T {
  let result: T;
  try {
    result = read(dir);
  } catch (e) {
    throw new SchemaError((e as Error).message);
  }
  if (result.count === 0) throw new SchemaError(`No *.schema.json files in ${dir}`);
  return result;
}

/** Every <kind>.schema.json of a folder, parsed, by kind name; invalid JSON is refused with its line and column. */
export function readSchemaFiles(dir: string): Record<string, unknown> {
  const read = readFolder(dir, readSchemaFolder);
  if (read.invalidJson.length > 0) throw new SchemaError(refusal({ invalidJson: read.invalidJson, problems: read.problems.map(formatProblem) }));
  return read.files;
}

/** Checks schema files and builds the registry; a SchemaError lists every problem found. */
export function registryFrom(files: Record<string, unknown>): KindRegistry {
  const problems = checkSchemas(files).map((p) => (typeof p === 'string' ? p : formatProblem(p)));
  if (problems.length > 0) throw new SchemaError(refusal({ invalidJson: [], problems }));
  return buildRegistry(files as Record<string, KindSchema>);
}

/** The registry of the schema files on disk, refusing what `npm run schemas:check` refuses, with the same messages. */
export function loadRegistry(dir: string): KindRegistry {
  const check = readFolder(dir, checkSchemaFolder);
  if (check.problems.length > 0) throw new SchemaError(refusal(check));
  return buildRegistry(check.files as Record<string, KindSchema>);
}
