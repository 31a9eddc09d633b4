import fs from 'node:fs';
import path from 'node:path';
import { generateTypes } from './lib/generate-types.js';

const root = path.resolve(import.meta.dirname, '..');
const outDir = path.join(root, 'src/shared/generated');
const files = await generateTypes(path.join(root, 'schemas'));
fs.mkdirSync(outDir, { recursive: true });
for (const old of fs.readdirSync(outDir)) if (!files.has(old)) fs.rmSync(path.join(outDir, old));
for (const [name, content] of files) fs.writeFileSync(path.join(outDir, name), content);
console.log(`Wrote ${files.size} files to src/shared/generated/`);
