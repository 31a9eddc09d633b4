// `npm run schemas:check [-- --dir <folder>] [--data]`: the check the server runs on the schema
// files at every start, before a deploy, with every problem as `file:line:column: message`; with
// --data, also what the files would make of the records already stored (read-only).
//
// Exit status (npm start relies on it, scripts/start.mjs): 0 the files are accepted and the stored
// data fits them; 1 the files are refused (the server would not start with them); 2 the files are
// accepted and a change needs a decision about stored records (or the database could not be read).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, loadDotEnv } from '../src/server/config.js';
import { checkSchemaFolder } from '../src/server/schema-check/folder.js';
import { formatDataReport, reportStoredData } from '../src/server/schema-check/data-report.js';
import { openStoredData } from '../src/server/schema-check/stored-data.js';
import type { KindSchema } from '../src/shared/kind-types.js';
import { buildRegistry } from '../src/shared/kinds.js';

const ROOT = path.resolve(import.meta.dirname, '..');

const USAGE = `Usage: npm run schemas:check [-- --dir <folder>] [--data]

Checks every <kind>.schema.json of the folder as the server does when it starts, and prints each
problem as file:line:column: message.

  --dir   the folder of schema files (default: SCHEMAS_DIR, else schemas/)
  --data  also read the configured database (DATABASE_URL / DATABASE_SCHEMA, else the SQLite file
          under DATA_DIR; .env is read as the server reads it), read-only, and list per kind and
          field how many stored records the files would leave invalid, and why

Exit status: 0 fine; 1 the files are refused; 2 accepted, but a change needs a decision about
stored records (or the database could not be read).`;

const EXIT = { fine: 0, refused: 1, decide: 2 } as const;

/** The settings the check needs, read as the server reads them (.env too); the others are not its business. */
function settings(names: string[]): ReturnType<typeof loadConfig> {
  const env = Object.fromEntries(names.flatMap((n) => (process.env[n] === undefined ? [] : [[n, process.env[n]]])));
  return loadConfig(env, ROOT);
}

async function main(): Promise<number> {
  let values: { dir?: string | undefined; data?: boolean | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({ options: { dir: { type: 'string' }, data: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
  } catch (e) {
    console.error(`${(e as Error).message}\n\n${USAGE}`);
    return EXIT.refused;
  }
  if (values.help) {
    console.log(USAGE);
    return EXIT.fine;
  }
  loadDotEnv(ROOT);
  const config = settings(['SCHEMAS_DIR']);
  // Files are shown as the folder was given: relative names stay relative (and clickable in a terminal).
  const given = values.dir ?? process.env['SCHEMAS_DIR']?.trim() ?? '';
  const dir = values.dir !== undefined ? path.resolve(values.dir) : config.schemasDir;
  const shownDir = given === '' ? path.relative(process.cwd(), dir) || '.' : given;

  let check: ReturnType<typeof checkSchemaFolder>;
  try {
    check = checkSchemaFolder(dir, shownDir);
  } catch (e) {
    console.error((e as Error).message);
    return EXIT.refused;
  }
  if (check.problems.length > 0) {
    for (const line of check.problems) console.error(line);
    const files = new Set(check.problems.map((p) => /^(.+?\.schema\.json):\d+:\d+: /.exec(p)?.[1]).filter((f) => f !== undefined));
    console.error(
      `\nschemas:check: ${check.problems.length === 1 ? '1 problem' : `${check.problems.length} problems`}${files.size > 0 ? ` in ${files.size === 1 ? '1 file' : `${files.size} files`}` : ''}: the schema files are refused (the server would not start with them).`,
    );
    return EXIT.refused;
  }
  const registry = buildRegistry(check.files as Record<string, KindSchema>);
  console.log(
    `schemas:check: ${check.count === 1 ? '1 schema file' : `${check.count} schema files`} in ${shownDir} accepted (${[...registry.keys()].join(', ')}).`,
  );
  if (!values.data) return EXIT.fine;

  let store: Awaited<ReturnType<typeof openStoredData>>;
  try {
    store = await openStoredData(settings(['DATA_DIR', 'DATABASE_URL', 'DATABASE_SCHEMA']));
  } catch (e) {
    if (e instanceof ConfigError) {
      console.log(`Configuration error, so the stored records were not checked: ${e.message}`);
      return EXIT.decide;
    }
    console.log(`The database could not be read, so the stored records were not checked: ${(e as Error).message}`);
    return EXIT.decide;
  }
  if ('none' in store) {
    console.log(store.none);
    return EXIT.fine;
  }
  try {
    const report = await reportStoredData(registry, store);
    for (const line of formatDataReport(report)) console.log(line);
    return report.needsDecision ? EXIT.decide : EXIT.fine;
  } catch (e) {
    console.log(`The stored records could not be read: ${(e as Error).message}`);
    return EXIT.decide;
  } finally {
    await store.close();
  }
}

process.exitCode = await main();
