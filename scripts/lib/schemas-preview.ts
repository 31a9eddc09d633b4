import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { createServer, normalizePath, type LogLevel, type Plugin, type ViteDevServer } from 'vite';
import type { KindSchema } from '../../src/shared/kind-types.js';
import { checkKindSchema } from '../../src/shared/meta-check.js';
import { checkRegistry } from '../../src/shared/registry-check.js';
import { kindSchemas } from './vite-kind-schemas.js';

// `npm run schemas:preview` (scripts/schemas-preview.ts): Vite's dev server on the schema files
// being edited, showing each kind's list card, detail view and forms with sample values
// (src/client/preview/). It reads the folder and nothing else: no database, no server of ours,
// and the only thing it writes is Vite's dependency cache, in a temporary folder.

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The preview's page and code (index.html, main.tsx): Vite's root. */
export const PREVIEW_ROOT = path.join(ROOT, 'src/client/preview');

const PREVIEW_ID = 'virtual:schemas-preview';
const PREVIEW_RESOLVED = `\0${PREVIEW_ID}`;
/** The module of the existing kindSchemas plugin (scripts/lib/vite-kind-schemas.ts). */
const KIND_SCHEMAS_RESOLVED = '\0virtual:kind-schemas';
/** What the app would ask the server for: the preview has none to ask. */
const SERVER_PATHS = /^\/(api|sharepoint|download)(\/|\?|$)/;

/** One problem of the folder: the file it is in (its name and full path) and what is wrong. */
export interface PreviewProblem {
  file: string;
  path: string;
  message: string;
}

export interface FolderCheck {
  /** The schema files found, sorted. */
  files: string[];
  problems: PreviewProblem[];
}

/** 'at position 13' of JSON.parse's message, as a line and column a person can find. */
function jsonPlace(text: string, message: string): string {
  const m = /at position (\d+)/.exec(message);
  if (!m) return message;
  const before = text.slice(0, Number(m[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${message} (line ${line}, column ${column})`;
}

/**
 * The checks the server makes when it starts (src/server/schemas.ts): every file parses as JSON,
 * passes checkKindSchema, and together they pass checkRegistry. Never throws: a problem is reported.
 */
export function checkSchemaFolder(dir: string): FolderCheck {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    return { files: [], problems: [{ file: path.basename(dir), path: dir, message: `The schemas folder ${dir} does not exist` }] };
  }
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.schema.json'))
    .sort();
  const problems: PreviewProblem[] = [];
  if (files.length === 0) problems.push({ file: path.basename(dir), path: dir, message: `No *.schema.json files in ${dir}` });
  const parsed: Record<string, unknown> = {};
  for (const file of files) {
    const full = path.join(dir, file);
    const text = fs.readFileSync(full, 'utf8');
    try {
      parsed[file.slice(0, -'.schema.json'.length)] = JSON.parse(text);
    } catch (e) {
      problems.push({ file, path: full, message: `is not valid JSON: ${jsonPlace(text, (e as Error).message)}` });
    }
  }
  const byFile = (line: string): PreviewProblem => {
    // The checks name the file first: 'issue.schema.json: properties.x has unknown keyword …'.
    const m = /^([^:\s]+\.schema\.json): ([\s\S]*)$/.exec(line);
    const file = m?.[1] ?? '';
    return m ? { file, path: path.join(dir, file), message: m[2] ?? line } : { file: path.basename(dir), path: dir, message: line };
  };
  const checked = Object.entries(parsed).flatMap(([name, schema]) => checkKindSchema(name, schema));
  problems.push(...checked.map(byFile));
  if (problems.length === 0) problems.push(...checkRegistry(parsed as Record<string, KindSchema>).map(byFile));
  return { files, problems };
}

/**
 * `import state from 'virtual:schemas-preview'`: the folder, its files and their problems, checked
 * in Node when the page loads. A change to a schema file (saved, added or removed) reloads the page
 * with both this module and the kindSchemas plugin's read again: a file that was broken is fixed
 * by saving it, with no restart.
 */
export function schemasPreviewPlugin(dir: string): Plugin {
  const folder = normalizePath(path.resolve(dir));
  const isSchemaFile = (file: string): boolean => normalizePath(path.dirname(file)) === folder && file.endsWith('.schema.json');
  let reload: NodeJS.Timeout | undefined;
  return {
    name: 'schemas-preview',
    resolveId: (source) => (source === PREVIEW_ID ? PREVIEW_RESOLVED : undefined),
    load(id) {
      if (id !== PREVIEW_RESOLVED) return undefined;
      return `export default ${JSON.stringify({ dir: path.resolve(dir), ...checkSchemaFolder(dir) })};`;
    },
    configureServer(server) {
      // New files too: the kindSchemas plugin watches only the files it has read.
      server.watcher.add(path.resolve(dir));
      server.middlewares.use((req, res, next) => {
        if (!SERVER_PATHS.test(req.url ?? '')) {
          next();
          return;
        }
        res.statusCode = 503;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ code: 503, msg: 'The schema preview has no server: nothing is loaded or saved' }));
      });
    },
    hotUpdate({ file, type }) {
      if (!isSchemaFile(file)) return undefined;
      if (this.environment.name === 'client') {
        const graph = this.environment.moduleGraph;
        for (const id of [PREVIEW_RESOLVED, KIND_SCHEMAS_RESOLVED]) {
          const mod = graph.getModuleById(id);
          if (mod) graph.invalidateModule(mod);
        }
        const hot = this.environment.hot;
        const logger = this.environment.logger;
        // Editors save in several steps (write, rename): one reload for them all.
        clearTimeout(reload);
        reload = setTimeout(() => {
          const { problems } = checkSchemaFolder(dir);
          const said = problems.length === 0 ? 'no problems' : `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
          logger.info(`${path.basename(file)} ${type === 'delete' ? 'removed' : type === 'create' ? 'added' : 'changed'}: ${said}; reloading the page`, {
            timestamp: true,
          });
          hot.send({ type: 'full-reload', path: '*' });
        }, 80);
      }
      // Handled here: no module update of its own.
      return [];
    },
  };
}

export interface SchemasPreviewOptions {
  /** The folder of <kind>.schema.json files. */
  dir: string;
  port?: number;
  /** Fail when the port is taken instead of taking the next free one. */
  strictPort?: boolean;
  host?: string;
  logLevel?: LogLevel;
}

export interface SchemasPreview {
  /** The page's address, such as http://localhost:5180/. */
  url: string;
  server: ViteDevServer;
  close(): Promise<void>;
}

/** Starts the preview's dev server on a schemas folder; close() stops it and removes its cache. */
export async function startSchemasPreview(options: SchemasPreviewOptions): Promise<SchemasPreview> {
  const dir = path.resolve(options.dir);
  // Vite keeps its pre-bundled dependencies here instead of node_modules/.vite.
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemas-preview-'));
  const removeCache = (): void => fs.rmSync(cacheDir, { recursive: true, force: true });
  // Also when the process ends without close() (Vite exits on SIGTERM by itself).
  process.once('exit', removeCache);
  // The kindSchemas plugin reads its folder from SCHEMAS_DIR when it is made.
  const before = process.env['SCHEMAS_DIR'];
  process.env['SCHEMAS_DIR'] = dir;
  let kinds: Plugin;
  try {
    kinds = kindSchemas(ROOT);
  } finally {
    if (before === undefined) delete process.env['SCHEMAS_DIR'];
    else process.env['SCHEMAS_DIR'] = before;
  }
  let server: ViteDevServer | undefined;
  try {
    server = await createServer({
      configFile: false,
      envDir: false,
      root: PREVIEW_ROOT,
      cacheDir,
      publicDir: false,
      appType: 'mpa',
      clearScreen: false,
      logLevel: options.logLevel ?? 'info',
      plugins: [react(), kinds, schemasPreviewPlugin(dir)],
      resolve: {
        // As vite.config.ts has them, so the forms are built from the same code as the app's.
        alias: [
          { find: /^markdown-to-jsx\/react$/, replacement: path.join(ROOT, 'src/client/engine/plain-markdown.tsx') },
          { find: /^@rjsf\/validator-ajv8$/, replacement: path.join(ROOT, 'src/client/engine/form-validator.ts') },
        ],
      },
      optimizeDeps: { entries: ['index.html', 'preview-app.tsx'] },
      server: {
        host: options.host ?? 'localhost',
        port: options.port ?? 5180,
        strictPort: options.strictPort ?? false,
        fs: { allow: [ROOT] },
        warmup: { clientFiles: ['./main.tsx', './preview-app.tsx'] },
      },
    });
    await server.listen();
  } catch (e) {
    await server?.close();
    process.off('exit', removeCache);
    removeCache();
    throw e;
  }
  const address = server.httpServer?.address();
  const port = address !== null && typeof address === 'object' ? address.port : (options.port ?? 5180);
  const url = server.resolvedUrls?.local[0] ?? `http://${options.host ?? 'localhost'}:${port}/`;
  const running = server;
  return {
    url,
    server: running,
    async close() {
      await running.close();
      process.off('exit', removeCache);
      removeCache();
    },
  };
}
