import type { KindRegistry, KindSchema } from '../shared/kind-types.js';
import { buildRegistry } from '../shared/kinds.js';
import { checkSchemaFolder, checkSchemas, formatProblem, readSchemaFolder, refusal } from './schema-check/folder.js';

export class SchemaError extends Error {}

/**
 * Reads every <kind>.schema.json of a folder, as parsed JSON keyed by kind name. A file that is not
 * valid JSON is refused with its line and column and what was expected there (schema-check/source.ts).
 */
export function readSchemaFiles(dir: string): Record<string, unknown> {
  let read: ReturnType<typeof readSchemaFolder>;
  try {
    read = readSchemaFolder(dir);
  } catch (e) {
    throw new SchemaError((e as Error).message);
  }
  if (read.invalidJson.length > 0) throw new SchemaError(refusal({ invalidJson: read.invalidJson, problems: read.problems.map(formatProblem) }));
  if (read.count === 0) throw new SchemaError(`No *.schema.json files in ${dir}`);
  return read.files;
}

/**
 * Checks schema files and builds the registry; throws SchemaError listing every problem found,
 * each as `file:line:column: message` where the files were read by readSchemaFiles.
 */
export function registryFrom(files: Record<string, unknown>): KindRegistry {
  const problems = checkSchemas(files).map((p) => (typeof p === 'string' ? p : formatProblem(p)));
  if (problems.length > 0) throw new SchemaError(refusal({ invalidJson: [], problems }));
  return buildRegistry(files as Record<string, KindSchema>);
}

/**
 * Loads the registry from the schema files on disk, as the server does at every start: what
 * `npm run schemas:check` refuses, with the same messages (schema-check/folder.ts).
 */
export function loadRegistry(dir: string): KindRegistry {
  let check: ReturnType<typeof checkSchemaFolder>;
  try {
    check = checkSchemaFolder(dir);
  } catch (e) {
    throw new SchemaError((e as Error).message);
  }
  if (check.count === 0) throw new SchemaError(`No *.schema.json files in ${dir}`);
  if (check.problems.length > 0) throw new SchemaError(refusal(check));
  return buildRegistry(check.files as Record<string, KindSchema>);
}
