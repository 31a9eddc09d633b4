// `npm start`: checks the schema files, builds what changed into a new folder, points at it, and
// runs the server from that folder (decision 033).
//
// - Each build is a folder of its own, dist/builds/<id>: client/ (the app, served at '/'), node/
//   (the compiled server), schemas/ (a snapshot of the *.schema.json files the client bundles and
//   the server reads). <id> is a hash of the build's inputs (file contents), so a second start with
//   nothing changed finds its build and starts in about a second; a fresh clone builds everything.
//   A target whose inputs did not change is copied from an earlier build, not rebuilt.
// - dist/builds/current names the build new starts serve. It is replaced (write, then rename) only
//   once a build is complete, its schemas were accepted and its server holds its port (decision
//   058: a start that cannot serve changes nothing); a build folder is never written again.
// - The server is started with the folder itself (CLIENT_DIR, SCHEMAS_DIR, and main.js imported
//   from it), never through the pointer: a running server keeps serving the build it started with,
//   whatever later starts build. The last 3 builds, the one the pointer names and any a running
//   server was started from are kept.
// - Schema files that are refused, or that need a decision the admin has not confirmed (the check's
//   exit 2, decision 058), leave the pointer alone, and the build it names is started: it serves
//   with the schemas it was built with.
//
// Test hooks, not for deployments (tests/server/start-builds.test.ts): START_BUILDS_DIR puts the
// builds elsewhere inside this package, and START_CLIENT_BUILD / START_SERVER_BUILD replace the
// build commands by a shell command that writes the build into $OUT_DIR (the client reading the
// schemas from $SCHEMAS_DIR), so the test need not spend a minute in `vite build` per build.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startVerdict } from './lib/start-gate.mjs';

const root = path.resolve(import.meta.dirname, '..');
// The server loads .env too; it is read here first because SCHEMAS_DIR and CLIENT_DIR decide what
// is built. Variables already set win, as in the server.
if (fs.existsSync(path.join(root, '.env'))) process.loadEnvFile(path.join(root, '.env'));

/** An environment variable as the server's configuration reads it: blank means unset. */
function setting(name) {
  const raw = process.env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

const KEEP = 3;
const buildsDir = path.resolve(root, setting('START_BUILDS_DIR') ?? 'dist/builds');
const pointer = path.join(buildsDir, 'current');
const runningDir = path.join(buildsDir, '.running');
/** The folder the schema snapshot is taken from. */
const schemasSource = path.resolve(root, setting('SCHEMAS_DIR') ?? 'schemas');
/** CLIENT_DIR set by the user: serve exactly that folder and build no client. */
const clientDirGiven = setting('CLIENT_DIR');
/** A folder as the log names it: relative to the package where it is inside. */
const show = (dir) => (path.relative(root, dir).startsWith('..') ? dir : path.relative(root, dir) || '.');

if (path.relative(root, buildsDir).startsWith('..')) {
  // The server finds package.json and node_modules above its own files.
  console.error(`START_BUILDS_DIR must be inside ${root}, got ${buildsDir}`);
  process.exit(1);
}

const SHARED = ['src/shared', 'package-lock.json', 'tsconfig.base.json'];
const TARGETS = {
  client: {
    folder: 'client',
    // And the schema files, bundled into the client (hashed from the snapshot, see below).
    inputs: [
      ...SHARED,
      'src/client',
      'public',
      'index.html',
      'vite.config.ts',
      'tsconfig.json',
      'scripts/compress-assets.ts',
      'scripts/lib/vite-kind-schemas.ts',
      'scripts/lib/vite-used-primeflex.ts',
      'scripts/lib/vite-used-primereact.ts',
      'scripts/lib/used-css.ts',
      'package.json',
    ],
    custom: setting('START_CLIENT_BUILD'),
    commands: (out) => [
      [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', out, '--emptyOutDir'],
      [path.join(root, 'node_modules/tsx/dist/cli.mjs'), path.join(root, 'scripts/compress-assets.ts'), out],
    ],
  },
  server: {
    folder: 'node',
    inputs: [...SHARED, 'src/server', 'tsconfig.server.json', 'tsconfig.build.json'],
    custom: setting('START_SERVER_BUILD'),
    commands: (out) => [[path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json'), '--outDir', out]],
  },
};

function filesUnder(rel) {
  const abs = path.join(root, rel);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return [rel];
  return fs
    .readdirSync(abs, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? filesUnder(path.join(rel, d.name)) : d.isFile() ? [path.join(rel, d.name)] : []));
}

function inputsHash(inputs, extra) {
  const hash = createHash('sha256');
  for (const file of inputs.flatMap(filesUnder).sort()) {
    hash.update(`${file}\0`);
    hash.update(fs.readFileSync(path.join(root, file)));
  }
  hash.update(`\0${extra}`);
  return hash.digest('hex');
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** A complete build's record (build.json, written last), or undefined. */
function buildInfo(id) {
  if (!id || id.startsWith('.') || id === 'current') return undefined;
  try {
    return JSON.parse(fs.readFileSync(path.join(buildsDir, id, 'build.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

function completeBuilds() {
  if (!fs.existsSync(buildsDir)) return [];
  return fs
    .readdirSync(buildsDir)
    .map(buildInfo)
    .filter((b) => b !== undefined)
    .sort((a, b) => b.builtAt.localeCompare(a.builtAt));
}

function currentBuild() {
  try {
    return buildInfo(fs.readFileSync(pointer, 'utf8').trim());
  } catch {
    return undefined;
  }
}

/** Builds whose server is still running: id -> pids. Entries of processes that ended are removed. */
function runningBuilds() {
  const running = new Map();
  if (!fs.existsSync(runningDir)) return running;
  for (const name of fs.readdirSync(runningDir)) {
    const file = path.join(runningDir, name);
    if (!alive(Number(name))) {
      fs.rmSync(file, { force: true });
      continue;
    }
    const id = fs.readFileSync(file, 'utf8').trim();
    running.set(id, [...(running.get(id) ?? []), Number(name)]);
  }
  return running;
}

/** Removes a folder so that no one sees it half gone: renamed away first. */
function removeFolder(name) {
  const away = path.join(buildsDir, `.removing-${name}-${process.pid}`);
  fs.renameSync(path.join(buildsDir, name), away);
  fs.rmSync(away, { recursive: true, force: true });
}

/** Folders (and pointer files) left by starts that were stopped half way. */
function removeLeftovers() {
  if (!fs.existsSync(buildsDir)) return;
  for (const name of fs.readdirSync(buildsDir)) {
    const staging = /^\.staging-(\d+)$/.exec(name);
    const removing = /^\.removing-.+-(\d+)$/.exec(name);
    const pointerTemp = /^current\.(\d+)\.tmp$/.exec(name);
    const pid = Number((staging ?? removing ?? pointerTemp)?.[1]);
    if (pid && pid !== process.pid && !alive(pid)) fs.rmSync(path.join(buildsDir, name), { recursive: true, force: true });
  }
}

/** Copies the *.schema.json files of the source folder; returns the hash of what was copied. */
function snapshotSchemas(into) {
  fs.mkdirSync(into, { recursive: true });
  const hash = createHash('sha256');
  if (!fs.existsSync(schemasSource)) return hash.digest('hex');
  for (const file of fs.readdirSync(schemasSource).sort()) {
    if (!file.endsWith('.schema.json')) continue;
    const bytes = fs.readFileSync(path.join(schemasSource, file));
    fs.writeFileSync(path.join(into, file), bytes);
    hash.update(`${file}\0`);
    hash.update(bytes);
    hash.update('\0');
  }
  return hash.digest('hex');
}

/**
 * The schema check on the snapshot (scripts/schemas-check.ts --data: the files, and what they make
 * of the stored records). Exit status 0: accepted; 1: refused; 2: accepted, but a change needs a
 * decision; anything else: the check itself failed.
 */
function checkSchemas(snapshot) {
  const args = [path.join(root, 'node_modules/tsx/dist/cli.mjs'), path.join(root, 'scripts/schemas-check.ts'), '--data'];
  const run = spawnSync(process.execPath, args, { cwd: root, env: { ...process.env, SCHEMAS_DIR: snapshot }, encoding: 'utf8' });
  // The messages name the folder people edit, not the snapshot.
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`.replaceAll(snapshot, schemasSource).trim();
  return { status: run.status ?? 1, output };
}

/**
 * What the admin confirmed for schema files that need a decision: `npm start --
 * --confirm-schema-changes=<code>` or CONFIRM_SCHEMA_CHANGES=<code>. The code is the start of the
 * hash of the schema files the check reported on, so it confirms those files and no later change.
 */
function confirmation() {
  try {
    const { values } = parseArgs({ options: { 'confirm-schema-changes': { type: 'string' } }, strict: true });
    return values['confirm-schema-changes'] ?? setting('CONFIRM_SCHEMA_CHANGES');
  } catch (e) {
    console.error(`${e.message}\nUsage: npm start [-- --confirm-schema-changes=<code>]`);
    process.exit(1);
  }
}

/**
 * The schema check's verdict on the snapshot: true to build it and switch to it; false to start the
 * previous build instead: the files were refused, or a change needs a decision the admin has not
 * confirmed (decision 058). Exits where the check failed or there is nothing to start.
 */
function schemasAccepted(snapshot, schemasHash, previous) {
  const check = checkSchemas(snapshot);
  const code = schemasHash.slice(0, 8);
  const confirmed = confirmation();
  const verdict = startVerdict(check.status, confirmed, code);
  if (verdict === 'deploy') {
    if (check.status === 2) for (const line of check.output.split('\n')) console.warn(`Warning: ${line}`);
    if (check.status === 2) console.warn(`Confirmed (${code}): these schema files are deployed as the report above says.`);
    else if (check.output) console.log(check.output);
    return true;
  }
  if (verdict === 'fail') {
    console.error(`${check.output}\n\nThe schema check could not run (exit status ${check.status}); nothing was built or switched.`);
    process.exit(1);
  }
  console.error(`${check.output}\n`);
  if (check.status === 1) {
    console.error(`The schema files in ${show(schemasSource)} were refused; the previous build keeps serving with the schemas it was built with.`);
  } else {
    if (confirmed !== undefined) console.error(`The confirmation ${confirmed} is for other schema files than these (${code}).`);
    console.error(
      `The schema files in ${show(schemasSource)} need a decision (lines marked ! above): nothing was built or switched. ` +
        `To deploy them as the report says, start with npm start -- --confirm-schema-changes=${code} (or CONFIRM_SCHEMA_CHANGES=${code}); it confirms these files only.`,
    );
  }
  if (!previous) {
    console.error(
      `There is no previous build to start: ${check.status === 1 ? 'correct the schema files' : 'confirm or change the schema files'} and run npm start again.`,
    );
    process.exit(1);
  }
  console.error(`Starting build ${previous.id} (built ${previous.builtAt}), which ${show(pointer)} still names.`);
  return false;
}

function runBuild(name, out, snapshot) {
  const target = TARGETS[name];
  const env = { ...process.env, SCHEMAS_DIR: snapshot, OUT_DIR: out };
  if (target.custom) return spawnSync(target.custom, { cwd: root, env, stdio: 'inherit', shell: true }).status === 0;
  return target.commands(out).every((args) => spawnSync(process.execPath, args, { cwd: root, env, stdio: 'inherit' }).status === 0);
}

/** Replaces the pointer in one step: a reader sees the old build's id or the new one's. */
function pointAt(id) {
  const temp = `${pointer}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${id}\n`);
  fs.renameSync(temp, pointer);
}

/** Removes builds no one needs: not among the last KEEP, not the pointer's, no server running from them. */
function prune(serving) {
  const running = runningBuilds();
  const current = currentBuild()?.id;
  completeBuilds().forEach((build, index) => {
    if (build.id === serving) return;
    const pids = running.get(build.id);
    if (build.id === current) console.log(`Build ${build.id} is kept: new starts serve it.`);
    else if (pids) console.log(`Build ${build.id} (${build.builtAt}) is kept: a server started from it is still running (pid ${pids.join(', ')}).`);
    else if (index < KEEP) console.log(`Build ${build.id} (${build.builtAt}) is kept, one of the last ${KEEP}.`);
    else {
      removeFolder(build.id);
      console.log(`Build ${build.id} (${build.builtAt}) was removed: older than the last ${KEEP} and no server runs from it.`);
    }
  });
}

/** Marks the build as in use until this process ends, so that a later start does not remove it. */
function markRunning(id) {
  fs.mkdirSync(runningDir, { recursive: true });
  const mark = path.join(runningDir, String(process.pid));
  fs.writeFileSync(mark, `${id}\n`);
  process.on('exit', () => fs.rmSync(mark, { force: true }));
}

/**
 * Runs the server of a build, in this process, so that Ctrl-C reaches it directly and it stops
 * cleanly; onServing runs once it holds its port (at once for a build whose server predates that).
 */
async function serve(build, onServing) {
  const dir = path.join(buildsDir, build.id);
  process.env.SCHEMAS_DIR = path.join(dir, 'schemas');
  if (!clientDirGiven) process.env.CLIENT_DIR = path.join(dir, 'client');
  console.log(
    `Serving build ${build.id} (built ${build.builtAt}) from ${show(dir)}: ` +
      `${clientDirGiven ? `the client in CLIENT_DIR=${clientDirGiven}` : 'its client'} and the schemas it was built with.`,
  );
  process.setSourceMapsEnabled(true);
  const server = await import(pathToFileURL(path.join(dir, 'node', 'server', 'main.js')).href);
  if (typeof server.main !== 'function') return onServing();
  await server.main({ onServing });
}

/** Builds (or copies from an earlier build) each target into the staging folder, then renames it to the build's folder. */
function assemble(id, hashes, staging, snapshot, previous) {
  const discard = () => fs.rmSync(staging, { recursive: true, force: true });
  const builds = completeBuilds();
  for (const name of ['client', 'server']) {
    if (!hashes[name]) {
      console.log(`No client is built: CLIENT_DIR=${clientDirGiven} is served as it is.`);
      continue;
    }
    const folder = TARGETS[name].folder;
    const out = path.join(staging, folder);
    const donor = builds.find((b) => b[name] === hashes[name] && fs.existsSync(path.join(buildsDir, b.id, folder)));
    if (donor) {
      fs.cpSync(path.join(buildsDir, donor.id, folder), out, { recursive: true });
      console.log(`The ${name} build is current (copied from build ${donor.id}).`);
      continue;
    }
    console.log(`Building the ${name} into ${show(path.join(buildsDir, id))} (${previous ? 'sources changed' : 'no build yet'})...`);
    if (!runBuild(name, out, snapshot)) {
      discard();
      console.error(`The ${name} build failed; nothing was switched${previous ? `: new starts still serve build ${previous.id}` : ''}.`);
      process.exit(1);
    }
  }
  const info = { id, builtAt: new Date().toISOString(), schemasFrom: schemasSource, ...hashes };
  fs.writeFileSync(path.join(staging, 'build.json'), `${JSON.stringify(info, null, 2)}\n`);
  try {
    fs.renameSync(staging, path.join(buildsDir, id));
  } catch (e) {
    // Another start finished the same build first: that one is used.
    if (e.code !== 'ENOTEMPTY' && e.code !== 'EEXIST') throw e;
    discard();
  }
}

/** Builds what changed into a new folder; returns the build to serve, and whether to point at it once it serves. */
function chooseBuild() {
  removeLeftovers();
  fs.mkdirSync(buildsDir, { recursive: true });
  const staging = path.join(buildsDir, `.staging-${process.pid}`);
  const discard = () => fs.rmSync(staging, { recursive: true, force: true });
  discard();
  const snapshot = path.join(staging, 'schemas');
  const schemasHash = snapshotSchemas(snapshot);
  const hashes = {
    client: clientDirGiven ? null : inputsHash(TARGETS.client.inputs, `schemas:${schemasHash}\0${TARGETS.client.custom ?? ''}`),
    server: inputsHash(TARGETS.server.inputs, TARGETS.server.custom ?? ''),
    schemas: schemasHash,
  };
  const id = createHash('sha256').update(JSON.stringify(hashes)).digest('hex').slice(0, 12);
  const previous = currentBuild();
  let build = buildInfo(id);

  // The check reads the stored data too, so it runs on every start, also for a build that exists.
  if (!schemasAccepted(snapshot, schemasHash, previous)) {
    discard();
    return { build: previous, switchTo: false };
  }

  if (build) {
    discard();
    if (hashes.client) console.log('The client build is current.');
    console.log('The server build is current.');
  } else {
    assemble(id, hashes, staging, snapshot, previous);
    build = buildInfo(id);
  }
  return { build, switchTo: previous?.id !== build.id, previous };
}

/** Points new starts at the build that now serves: only once its server holds its port (decision 058). */
function switchTo(build, previous) {
  pointAt(build.id);
  console.log(
    `Build ${build.id} now serves new starts (${show(pointer)} names it)` +
      `${previous ? `; a server started from build ${previous.id} keeps serving that until it is restarted` : ''}.`,
  );
}

const chosen = chooseBuild();
markRunning(chosen.build.id);
await serve(chosen.build, () => {
  if (chosen.switchTo) switchTo(chosen.build, chosen.previous);
  prune(chosen.build.id);
});
