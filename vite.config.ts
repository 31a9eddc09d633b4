import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';
import { kindSchemas } from './scripts/lib/vite-kind-schemas.js';

// The client is built into dist/client and served by the Fastify server at '/'.
// In development, `vite` proxies the three services to a server started with `npm run dev:server`.
export default defineConfig({
  plugins: [
    react(),
    // The record kinds: the schema files, bundled (SCHEMAS_DIR or schemas/).
    kindSchemas(),
    // A service worker that keeps the app itself (never API data) on the phone, so it opens
    // without coverage. The server serves /manifest.json, so the plugin writes none.
    VitePWA({
      injectRegister: false,
      registerType: 'autoUpdate',
      manifest: false,
      workbox: {
        globPatterns: ['**/*.{js,css,html,svg,woff2}'],
        // The spreadsheet library is fetched when an export is pressed, not kept ahead of time.
        globIgnores: ['**/xlsx-*.js', '**/InterVariable-Italic-*.woff2'],
        maximumFileSizeToCacheInBytes: 3 * 1024 * 1024,
        navigateFallback: '/index.html',
        navigateFallbackDenylist: [/^\/api\//, /^\/sharepoint\//, /^\/download\//, /^\/manifest\.json$/],
        cleanupOutdatedCaches: true,
        clientsClaim: true,
        skipWaiting: true,
      },
    }),
  ],
  build: { outDir: 'dist/client', emptyOutDir: true, sourcemap: true, manifest: true },
  server: {
    proxy: {
      '/api': 'http://localhost:8080',
      '/sharepoint': 'http://localhost:8080',
      '/download': 'http://localhost:8080',
    },
  },
});
