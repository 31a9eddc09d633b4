import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

// Writes .br and .gz beside each text asset of the client build, so the server sends them
// precompressed at the best ratio instead of compressing on every request.
// The folder is dist/client (`npm run build:client`) unless one is named: `npm start` builds into
// a new folder per build (scripts/start.mjs, decision 033).
const root = path.resolve(import.meta.dirname, '..');
const dir = path.resolve(root, process.argv[2] ?? 'dist/client');
const TEXT = /\.(js|css|html|svg|json|txt|map|ttf|eot)$/;
let count = 0;
function walk(folder: string): void {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== '.vite') walk(file);
    } else if (TEXT.test(entry.name) && !entry.name.endsWith('.map')) {
      const data = fs.readFileSync(file);
      if (data.length < 1024) continue;
      fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
      fs.writeFileSync(`${file}.gz`, zlib.gzipSync(data, { level: 9 }));
      count++;
    }
  }
}
walk(dir);
console.log(`Compressed ${count} assets in ${path.relative(root, dir)} (.br and .gz)`);
