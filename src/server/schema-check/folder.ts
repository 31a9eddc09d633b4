import fs from 'node:fs';
import path from 'node:path';
import type { KindSchema } from '../../shared/kind-types.js';
import { checkKindSchema } from '../../shared/meta-check.js';
import { checkRegistry } from '../../shared/registry-check.js';
import { parseSchemaText, type ParsedSchemaText, type PlacedProblem } from './source.js';

// The check of a folder of schema files, at every start of the server and by `npm run schemas:check`:
// JSON syntax, then the meta-check of each file and of the kinds together, each problem as `file:line:column: message`.

export const SCHEMA_FILE_SUFFIX = '.schema.json';

/** A problem of one file (the folder as given joined with the file's name), placed. */
type FileProblem = PlacedProblem & { file: string };

/** `file:line:column: message`, the form editors and terminals link to. */
export function formatProblem(p: FileProblem): string {
  return `${p.file}:${p.line}:${p.column}: ${p.message}`;
}

/** Where each parsed schema came from, for placing the checks' messages; objects made otherwise have none. */
const sources = new WeakMap<object, { file: string; parsed: ParsedSchemaText }>();

/** The files that are valid JSON, parsed, by kind name; the names of the others and their syntax errors; how many *.schema.json files there are. */
type FolderRead = { files: Record<string, unknown>; invalidJson: string[]; problems: FileProblem[]; count: number };

/** Reads every <kind>.schema.json of a folder, keeping where each came from; throws when the folder does not exist. */
export function readSchemaFolder(dir: string, shownDir: string = dir): FolderRead {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new Error(`The schemas folder ${shownDir} does not exist`);
  const out: FolderRead = { files: {}, invalidJson: [], problems: [], count: 0 };
  for (const name of fs.readdirSync(dir).sort()) {
    if (!name.endsWith(SCHEMA_FILE_SUFFIX)) continue;
    out.count++;
    const file = path.join(shownDir, name);
    const parsed = parseSchemaText(fs.readFileSync(path.join(dir, name), 'utf8'));
    if (parsed.syntax !== undefined) {
      out.invalidJson.push(name);
      out.problems.push({ file, ...parsed.syntax, message: `not valid JSON: ${parsed.syntax.message}` });
      continue;
    }
    const kind = name.slice(0, -SCHEMA_FILE_SUFFIX.length);
    out.files[kind] = parsed.value;
    if (parsed.value !== null && typeof parsed.value === 'object') sources.set(parsed.value, { file, parsed });
  }
  return out;
}

/** A message of the checks ('issue.schema.json: properties.x …') placed in its file when the schema was read from one; as it was otherwise. */
function placed(files: Record<string, unknown>, message: string): FileProblem | string {
  const m = /^([a-zA-Z0-9_-]+)\.schema\.json: ([\s\S]*)$/.exec(message);
  const schema = m ? files[m[1] as string] : undefined;
  const source = schema !== null && typeof schema === 'object' ? sources.get(schema) : undefined;
  if (!m || source === undefined) return message;
  const text = m[2] as string;
  return { file: source.file, ...source.parsed.locate(text), message: text };
}

/**
 * The meta-check of parsed schema files (and keys given twice in them), one by one and then, when
 * `together` and every file passed alone, together (checkRegistry). Each problem placed where it can be.
 */
export function checkSchemas(files: Record<string, unknown>, together = true): Array<FileProblem | string> {
  const duplicates = Object.values(files).flatMap((schema): FileProblem[] => {
    const source = schema !== null && typeof schema === 'object' ? sources.get(schema) : undefined;
    return source === undefined ? [] : source.parsed.duplicates.map((d) => ({ file: source.file, ...d }));
  });
  const messages = Object.entries(files).flatMap(([name, schema]) => checkKindSchema(name, schema));
  if (messages.length === 0 && duplicates.length === 0 && together) messages.push(...checkRegistry(files as Record<string, KindSchema>));
  return sortByPlace([...duplicates, ...messages.map((message) => placed(files, message))]);
}

/** Problems by file (in name order) and place in it; those placed nowhere last, as they came. */
export function sortByPlace<T extends FileProblem | string>(problems: T[]): T[] {
  const key = (p: T): [string, number, number] => (typeof p === 'string' ? ['\uffff', 0, 0] : [p.file, p.line, p.column]);
  // A stable sort: problems at one place stay in the order they came.
  return [...problems].sort((a, b) => {
    const [fa, la, ca] = key(a);
    const [fb, lb, cb] = key(b);
    return (fa < fb ? -1 : fa > fb ? 1 : 0) || la - lb || ca - cb;
  });
}

/** As FolderRead, with every problem formatted (`file:line:column: message`): a registry can be built from `files` when there are none. */
export type FolderCheck = Omit<FolderRead, 'problems'> & { problems: string[] };

/** Checks a folder of schema files (syntax, then checkSchemas); throws when the folder does not exist. */
export function checkSchemaFolder(dir: string, shownDir: string = dir): FolderCheck {
  const read = readSchemaFolder(dir, shownDir);
  const problems = sortByPlace([...read.problems, ...checkSchemas(read.files, read.invalidJson.length === 0)]);
  if (read.count === 0) problems.push(`No *${SCHEMA_FILE_SUFFIX} files in ${shownDir}`);
  return { files: read.files, invalidJson: read.invalidJson, problems: problems.map((p) => (typeof p === 'string' ? p : formatProblem(p))), count: read.count };
}

/** The message a refused folder stops the server with: a heading, then one problem a line. */
export function refusal(check: Pick<FolderCheck, 'invalidJson' | 'problems'>): string {
  const names = check.invalidJson;
  const invalid = names.length > 0 ? `${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} not valid JSON. ` : '';
  return `${invalid}The schema files have problems:\n  - ${check.problems.join('\n  - ')}`;
}
