// `npm run schemas:preview [-- --dir <folder>] [-- --port <n>]`: a page on this computer showing
// what the schema files being edited look like in the app (each kind's list card, detail view,
// new-record and edit forms, with sample values), updated each time a file is saved. It touches
// nothing of the running deployment: no database, no server of ours (scripts/lib/schemas-preview.ts).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { checkSchemaFolder, startSchemasPreview } from './lib/schemas-preview.js';

const USAGE = `Usage: npm run schemas:preview [-- --dir <folder>] [-- --port <n>]

  --dir   the folder of <kind>.schema.json files (default: SCHEMAS_DIR, else schemas/)
  --port  the port on localhost (default: 5180; the next free one if it is taken)`;

const { values } = parseArgs({
  options: { dir: { type: 'string' }, port: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  strict: true,
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const dir = path.resolve(values.dir ?? process.env['SCHEMAS_DIR'] ?? 'schemas');
const port = values.port === undefined ? 5180 : Number(values.port);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`--port must be a port number (got ${values.port})\n\n${USAGE}`);
  process.exit(2);
}
const { files, problems } = checkSchemaFolder(dir);
if (files.length === 0) {
  console.error(problems.map((p) => p.message).join('\n'));
  process.exit(1);
}

const preview = await startSchemasPreview({ dir, port, strictPort: values.port !== undefined });
console.log(
  `\nSchema preview of ${dir} (${files.length} file${files.length === 1 ? '' : 's'}${problems.length > 0 ? `, ${problems.length} problem${problems.length === 1 ? '' : 's'}` : ''})`,
);
console.log(`  Open ${preview.url} (a phone-sized window shows it as drivers see it).`);
console.log('  Save a schema file and the page updates. Nothing is saved anywhere: no server, no database.');
console.log('  Ctrl+C stops it.\n');

const stop = (): void => {
  void preview.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
