import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { kindSchemas } from './scripts/lib/vite-kind-schemas.js';

export default defineConfig({
  test: {
    // Two cores: more workers only make the scrypt-heavy auth tests and the browser slower.
    maxWorkers: 2,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
    projects: [
      {
        test: {
          name: 'server',
          include: ['tests/server/**/*.test.ts', 'tests/shared/**/*.test.ts'],
          environment: 'node',
          // PostgreSQL schemas of the run are dropped once, at its end (tests/helpers/database-schemas.ts).
          globalSetup: ['tests/helpers/pg-global.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'worker',
          include: ['tests/worker/**/*.test.ts'],
          environment: 'node',
          // Real ffmpeg and a WebAssembly detector on two cores: a video takes seconds.
          testTimeout: 180_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins: [react(), kindSchemas()],
        test: {
          name: 'client',
          include: ['tests/client/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['tests/client/setup.ts'],
          env: { VITE_SP_TEST_USER: 'sptester' },
          testTimeout: 20_000,
          server: { deps: { inline: ['@rjsf/primereact'] } },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/e2e/global-setup.ts'],
          // One browser at a time on two cores.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // A busy two-core machine: waiting for the page may take longer than vitest's 1 s default.
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
});
