import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './server.js';

/** A copy of the shipped schemas with one property added to the issue kind, as an admin would add it. */
export function schemasWithTyrePressure(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-schemas-'));
  for (const f of fs.readdirSync(path.join(ROOT, 'schemas'))) fs.copyFileSync(path.join(ROOT, 'schemas', f), path.join(dir, f));
  const file = path.join(dir, 'issue.schema.json');
  const schema = JSON.parse(fs.readFileSync(file, 'utf8'));
  schema.properties.tyrePressure = { title: 'Tyre Pressure (bar)', type: 'number', minimum: 0, maximum: 10 };
  fs.writeFileSync(file, JSON.stringify(schema, null, 2));
  return dir;
}
