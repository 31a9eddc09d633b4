import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { APP_SOURCE } from '../../src/shared/page-routes.js';

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

export interface PageWeight {
  files: Array<{ file: string; gzipBytes: number }>;
  totalGzipBytes: number;
}

/** The budget of the sign-in page's JavaScript (gzip), from the shell issue. */
export const SIGN_IN_BUDGET_BYTES = 120 * 1024;

/**
 * The JavaScript a page loads on arrival: the entry chunk and its static imports, the app's, and
 * the page's own lazy chunk and its static imports, each gzipped as a server would send it.
 */
export function pageWeight(clientDir: string, pageSource: string): PageWeight {
  const manifestFile = path.join(clientDir, '.vite', 'manifest.json');
  if (!fs.existsSync(manifestFile)) throw new Error(`${manifestFile} is missing: run npm run build:client first`);
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, ManifestChunk>;
  const seen = new Set<string>();
  const visit = (key: string): void => {
    if (seen.has(key)) return;
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in the build manifest`);
    seen.add(key);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  const entry = Object.keys(manifest).find((k) => manifest[k]?.isEntry);
  if (!entry) throw new Error('the build has no entry chunk');
  visit(entry);
  // The app itself, which the entry imports once the page's shell has painted (decision 026); the
  // build may also have put it in a chunk the page imports, as it does now (the 'app' chunk).
  if (manifest[APP_SOURCE]) visit(APP_SOURCE);
  visit(pageSource);
  const files = [...seen].map((key) => {
    const file = (manifest[key] as ManifestChunk).file;
    return { file, gzipBytes: zlib.gzipSync(fs.readFileSync(path.join(clientDir, file)), { level: 9 }).length };
  });
  return { files, totalGzipBytes: files.reduce((sum, f) => sum + f.gzipBytes, 0) };
}
