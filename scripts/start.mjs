// `npm start`: builds only what changed since the last build, then runs the server.
// A build's inputs are hashed (file contents) and the hash is kept beside its output; a fresh
// clone builds everything, a second start with nothing changed starts in about a second.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

const SHARED = ['src/shared', 'package-lock.json', 'tsconfig.base.json'];
const TARGETS = [
  {
    name: 'client',
    // The schema files are bundled into the client: from SCHEMAS_DIR when it is set, as the server reads them.
    inputs: [...SHARED, 'src/client', path.relative(root, path.resolve(root, process.env.SCHEMAS_DIR ?? 'schemas')), 'public', 'index.html', 'vite.config.ts', 'tsconfig.json', 'scripts/compress-assets.ts', 'package.json'],
    stamp: 'dist/client/.build-inputs',
    command: ['run', 'build:client'],
  },
  {
    name: 'server',
    inputs: [...SHARED, 'src/server', 'tsconfig.server.json', 'tsconfig.build.json'],
    stamp: 'dist/node/.build-inputs',
    command: ['run', 'build:server'],
  },
];

function filesUnder(rel) {
  const abs = path.join(root, rel);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return [rel];
  return fs
    .readdirSync(abs, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? filesUnder(path.join(rel, d.name)) : d.isFile() ? [path.join(rel, d.name)] : []));
}

function inputsHash(inputs) {
  const hash = createHash('sha256');
  for (const file of inputs.flatMap(filesUnder).sort()) {
    hash.update(`${file}\0`);
    hash.update(fs.readFileSync(path.join(root, file)));
  }
  return hash.digest('hex');
}

for (const target of TARGETS) {
  const stamp = path.join(root, target.stamp);
  const wanted = inputsHash(target.inputs);
  const have = fs.existsSync(stamp) ? fs.readFileSync(stamp, 'utf8').trim() : '';
  if (have === wanted) {
    console.log(`The ${target.name} build is current.`);
    continue;
  }
  console.log(`Building the ${target.name} (${have ? 'sources changed' : 'no build yet'})...`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const run = spawnSync(npm, target.command, { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
  fs.writeFileSync(stamp, `${wanted}\n`);
}

// The server runs in this process, so Ctrl-C reaches it directly and it stops cleanly.
process.setSourceMapsEnabled(true);
await import(new URL('../dist/node/server/main.js', import.meta.url).href);
