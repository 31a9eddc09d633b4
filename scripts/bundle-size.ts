import path from 'node:path';
import { pageWeight, SIGN_IN_BUDGET_BYTES } from './lib/bundle-size.js';

// Prints the JavaScript the sign-in page loads, from the last client build (npm run build:client).
const root = path.resolve(import.meta.dirname, '..');
const weight = pageWeight(path.join(root, 'dist/client'), 'src/client/pages/login-page.tsx');
const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;
for (const f of weight.files) console.log(`${kb(f.gzipBytes).padStart(10)}  ${f.file}`);
console.log(`${kb(weight.totalGzipBytes).padStart(10)}  total gzip for the sign-in page (budget ${kb(SIGN_IN_BUDGET_BYTES)})`);
if (weight.totalGzipBytes > SIGN_IN_BUDGET_BYTES) {
  console.error('Over budget: keep heavy libraries out of the entry and the sign-in page (lazy routes).');
  process.exit(1);
}
