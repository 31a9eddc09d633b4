import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The client is built into dist/client and served by the Fastify server at '/'.
// In development, `vite` proxies the three services to a server started with `npm run dev:server`.
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist/client', emptyOutDir: true, sourcemap: true, manifest: true },
  server: {
    proxy: {
      '/api': 'http://localhost:8080',
      '/sharepoint': 'http://localhost:8080',
      '/download': 'http://localhost:8080',
    },
  },
});
