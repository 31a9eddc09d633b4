import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';
import { schemasVersion } from '../../src/shared/schema-evolution.js';

const ID = 'virtual:kind-schemas';
const RESOLVED = `\0${ID}`;

/**
 * `import schemas from 'virtual:kind-schemas'`: every <kind>.schema.json of the schemas folder
 * (SCHEMAS_DIR, as the server reads it; default schemas/), keyed by kind name, bundled when the
 * client is built. The server and the app so always show the same kinds, and a kind added to the
 * folder is in the next build without a code change.
 */
export function kindSchemas(root: string = process.cwd()): Plugin {
  const dir = path.resolve(root, process.env['SCHEMAS_DIR'] ?? 'schemas');
  return {
    name: 'kind-schemas',
    // The version of the files the app is built with, sent with every API call (x-schemas-version):
    // the server tells an app built with other files that a new version of the forms is available.
    // Each kind's route and API path, for the entry to ask for a record with the app's code (decision 078).
    config: () => {
      const schemas = readSchemas(dir);
      return { define: { __SCHEMAS_VERSION__: JSON.stringify(schemasVersion(schemas)), __RECORD_APIS__: JSON.stringify(recordApis(schemas)) } };
    },
    resolveId: (source) => (source === ID ? RESOLVED : undefined),
    load(id) {
      if (id !== RESOLVED) return undefined;
      const schemas: Record<string, unknown> = {};
      for (const file of fs.readdirSync(dir).sort()) {
        if (!file.endsWith('.schema.json')) continue;
        const full = path.join(dir, file);
        this.addWatchFile(full);
        schemas[file.slice(0, -'.schema.json'.length)] = JSON.parse(fs.readFileSync(full, 'utf8'));
      }
      return `export default ${JSON.stringify(schemas)};`;
    },
  };
}

/** The schema files of a folder, parsed, keyed by kind name (unreadable ones left to the server's check). */
function readSchemas(dir: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!fs.existsSync(dir)) return out;
  for (const file of fs.readdirSync(dir).sort()) {
    if (!file.endsWith('.schema.json')) continue;
    try {
      out[file.slice(0, -'.schema.json'.length)] = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    } catch {
      // A file that is not JSON: the build's load() reports it.
    }
  }
  return out;
}

/** Each kind's list route and API path (x-kind.route, x-kind.apiPath). */
function recordApis(schemas: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const schema of Object.values(schemas)) {
    const meta = (schema as { 'x-kind'?: { route?: unknown; apiPath?: unknown } } | null)?.['x-kind'];
    if (typeof meta?.route === 'string' && typeof meta.apiPath === 'string') out[meta.route] = meta.apiPath;
  }
  return out;
}
