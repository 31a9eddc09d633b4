import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// `npm run bench [name]`: runs every scripts/bench/*.bench.ts (or the one of that name, else those
// whose name contains the argument), one after another. Benchmarks are scripts, never part of npm test; each prints its
// numbers and the machine, to be recorded in docs/PERFORMANCE.md.
const dir = import.meta.dirname;
const filter = process.argv[2] ?? '';
const all = fs.readdirSync(dir).filter((f) => f.endsWith('.bench.ts'));
// A name that is a whole bench's runs that one alone (`desensitize`, not desensitize-eval too).
const files = all.includes(`${filter}.bench.ts`) ? [`${filter}.bench.ts`] : all.filter((f) => f.includes(filter)).sort();
if (files.length === 0) {
  console.error(`No benchmark matches '${filter}' in scripts/bench/`);
  process.exit(1);
}
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { run?: () => Promise<void> };
  if (typeof mod.run !== 'function') throw new Error(`${file} must export async function run()`);
  await mod.run();
}
