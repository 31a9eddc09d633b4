import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';

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
