import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    clientDir: string;
  }
}

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Builds the client once for the end-to-end tests, into a folder of its own, in a child
 * process: a production build exactly as `npm run build:client` makes it (vitest's own
 * NODE_ENV=test would give React's development build).
 */
export default function setup(project: TestProject): void {
  const outDir = path.join(ROOT, 'test-results', 'e2e-client');
  fs.rmSync(outDir, { recursive: true, force: true });
  const vite = path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  execFileSync(process.execPath, [vite, 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: 'inherit',
  });
  project.provide('clientDir', outDir);
}
