import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';
import { kindSchemas } from './scripts/lib/vite-kind-schemas.js';
import { usedPrimeFlex } from './scripts/lib/vite-used-primeflex.js';
import { usedPrimeReact } from './scripts/lib/vite-used-primereact.js';

// The client is built into dist/client and served by the Fastify server at '/'.
// In development, `vite` proxies the three services to a server started with `npm run dev:server`.
export default defineConfig({
  plugins: [
    react(),
    // The record kinds: the schema files, bundled (SCHEMAS_DIR or schemas/).
    kindSchemas(),
    // Build only: only the CSS rules and icons the app uses, and no Inter font (decision 018).
    usedPrimeReact(),
    usedPrimeFlex(),
    // A service worker that keeps the app itself (never API data) on the phone, so it opens
    // without coverage, and sends the outbox on Background Sync (src/client/sw.ts, decision 013).
    // The server serves /manifest.json, so the plugin writes none.
    VitePWA({
      injectRegister: false,
      registerType: 'autoUpdate',
      manifest: false,
      strategies: 'injectManifest',
      srcDir: 'src/client',
      filename: 'sw.ts',
      injectManifest: {
        globPatterns: ['**/*.{js,css,html,svg,woff2}'],
        // The spreadsheet library (SheetJS, in the POI workbook chunk and the Excel worker) is
        // fetched when an export is pressed, not kept ahead of time: exports need the network anyway.
        globIgnores: ['**/xlsx-*.js', '**/poi-sheet-*.js', '**/poi-excel.worker-*.js'],
        maximumFileSizeToCacheInBytes: 3 * 1024 * 1024,
        // A classic worker script, as the generated one was (module workers need newer browsers).
        rollupFormat: 'iife',
      },
    }),
  ],
  resolve: {
    alias: [
      // RJSF's markdown renderer is never used by our forms (plain titles, no markdown options).
      { find: /^markdown-to-jsx\/react$/, replacement: fileURLToPath(new URL('./src/client/engine/plain-markdown.tsx', import.meta.url)) },
      // No JSON-schema compiler in the browser: the server validates (src/client/engine/form-validator.ts).
      { find: /^@rjsf\/validator-ajv8$/, replacement: fileURLToPath(new URL('./src/client/engine/form-validator.ts', import.meta.url)) },
    ],
  },
  build: {
    outDir: 'dist/client',
    emptyOutDir: true,
    sourcemap: true,
    manifest: true,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            // What the entry (boot.ts) needs before the first paint stays out of the app's chunk.
            {
              name: 'boot',
              test: /src[\\/](shared[\\/]page-routes|client[\\/]app[\\/]page-imports|client[\\/]api[\\/](config|early-answer)|client[\\/]lib[\\/]storage)\.ts$/,
              priority: 2,
            },
            // What every screen runs (React, the router, the app's frame, sign-in and API client) in
            // one chunk, fetched by boot.ts with the page's: not a dozen small shared chunks (decision 026).
            {
              name: 'app',
              priority: 1,
              test: /node_modules[\\/](react|react-dom|scheduler|react-router|react-router-dom|cookie|set-cookie-parser)[\\/]|src[\\/]client[\\/](main|app[\\/]app|auth[\\/]\w+|ui[\\/](loading|page-header|toast)|lib[\\/](idle|storage)|api[\\/](client|auth|offline-cache|recent-records))\.tsx?$/,
            },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': 'http://localhost:8080',
      '/sharepoint': 'http://localhost:8080',
      '/download': 'http://localhost:8080',
    },
  },
});
