import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { sql } from 'kysely';
import { ALICE, ROOT, startServer, type DbTarget, type TestServer } from './server.js';
import { buildRegistry } from '../../src/shared/kinds.js';
import type { KindSchema } from '../../src/shared/kind-types.js';
import { reportStoredData, type DataReport } from '../../src/server/schema-check/data-report.js';
import { openStoredData } from '../../src/server/schema-check/stored-data.js';

// A generator of schema changes with records, edits and old-phone writes between them (issue 41):
// random sequences run against the real server, restarted on one database after each change, and
// after every step no stored value is lost (each is in a read, or named by the schema check), every
// record lists, opens and saves a change of another field, a filter under any of a field's names
// finds the record, and no answer is a 5xx.

type Json = Record<string, any>;

/** One field of the generated kind, as the admin's file declares it now. */
interface Field {
  name: string;
  type: 'string' | 'integer';
  old: string[];
  winner?: 'new' | 'old';
  required?: boolean;
  /** Integer fields: values below it (stored before the limit) no longer fit. */
  minimum?: number;
  /** Text fields: a pattern every value the generator writes matches. */
  pattern?: boolean;
}

/** The generated kind as a whole: its file's name and earlier names (a kind renamed), and its date field. */
interface KindState {
  stem: string;
  old: string[];
  dateField: 'refuelTime' | 'probeTime';
}

/** What the generator does next; indices pick among what exists then (modulo), so shrinking keeps sequences valid. */
export type Op =
  | { t: 'create'; fill: boolean[] }
  | { t: 'edit'; rec: number; field: number }
  | { t: 'oldPhone'; rec: number; field: number }
  | { t: 'add' }
  | { t: 'remove'; field: number }
  | { t: 'rename'; field: number }
  | { t: 'merge'; a: number; b: number }
  | { t: 'renameOnto'; field: number; hidden: number }
  | { t: 'winner'; field: number; old: boolean }
  | { t: 'retype'; field: number }
  | { t: 'require'; field: number }
  | { t: 'limit'; field: number }
  | { t: 'pattern'; field: number }
  | { t: 'dateField' }
  | { t: 'renameKind' };

const idx = fc.nat({ max: 7 });
/** SCHEMA_FUZZ_WITHOUT=winner,retype leaves those ops out (a main that does not know x-renamedWinner yet, say). */
const without = new Set((process.env['SCHEMA_FUZZ_WITHOUT'] ?? '').split(','));
export const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ t: fc.constant('create' as const), fill: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }) }), weight: 3 },
  { arbitrary: fc.record({ t: fc.constant('edit' as const), rec: idx, field: idx }), weight: 3 },
  { arbitrary: fc.record({ t: fc.constant('oldPhone' as const), rec: idx, field: idx }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('add' as const) }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('remove' as const), field: idx }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('rename' as const), field: idx }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('merge' as const), a: idx, b: idx }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('renameOnto' as const), field: idx, hidden: idx }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('winner' as const), field: idx, old: fc.boolean() }), weight: without.has('winner') ? 0 : 1 },
  { arbitrary: fc.record({ t: fc.constant('retype' as const), field: idx }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('require' as const), field: idx }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('limit' as const), field: idx }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('pattern' as const), field: idx }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('dateField' as const) }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('renameKind' as const) }), weight: 1 },
);

const PATH = '/api/vtp/probeRecord';
const DAY = '2026-11-20';

/** The generated kind's schema file: the fixed fields a kind needs, then the generated ones. */
function probeSchema(fields: Field[], k: KindState): Json {
  const base = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/fixtures/kinds/refuel.schema.json'), 'utf8')) as Json;
  const meta = base['x-kind'] as Json;
  Object.assign(meta, {
    apiPath: '/vtp/probeRecord',
    route: '/data/probe',
    sortable: fields.filter((f) => f.type === 'integer').map((f) => f.name),
    filters: Object.fromEntries(fields.filter((f) => f.type === 'string').map((f) => [f.name, 'exact'])),
    card: { title: { text: 'Probe' }, lines: [{ label: 'Time', field: 'refuelTime', format: 'datetime-minute', fallback: 'N/A' }] },
    packages: [{ route: 'download_ProbesFiles', label: 'Probes', noun: 'Probe' }],
    dateField: k.dateField,
  });
  delete meta['dataPage'];
  delete meta['attachments'];
  delete meta['workspace'];
  const props = base['properties'] as Json;
  for (const name of ['station', 'litres', 'pricePerLitre', 'totalPrice', 'remark', 'attachmentFolder']) delete props[name];
  props['probeTime'] = { title: 'Probe Time', type: 'string', format: 'datetime-text' };
  for (const f of fields)
    props[f.name] = {
      title: `Field ${f.name}`,
      type: f.type,
      ...(f.old.length > 0 ? { 'x-renamedFrom': f.old } : {}),
      ...(f.winner ? { 'x-renamedWinner': f.winner } : {}),
      ...(f.minimum !== undefined && f.type === 'integer' ? { minimum: f.minimum } : {}),
      ...(f.pattern && f.type === 'string' ? { pattern: '^v[0-9]+$', 'x-patternMessage': 'v and digits' } : {}),
    };
  const required = fields.filter((f) => f.required).map((f) => f.name);
  return {
    ...base,
    $id: `${k.stem}.schema.json`,
    title: 'Probe Record',
    ...(k.old.length > 0 ? { 'x-renamedFrom': k.old } : {}),
    ...(required.length > 0 ? { required } : {}),
  };
}

/** The shipped schemas and the generated kind, in a new folder. */
function writeSchemas(fields: Field[], k: KindState): { dir: string; schemas: Json } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-fuzz-'));
  const schemas: Json = {};
  for (const f of fs.readdirSync(path.join(ROOT, 'schemas')).filter((n) => n.endsWith('.schema.json')))
    schemas[f.slice(0, -'.schema.json'.length)] = JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', f), 'utf8'));
  schemas[k.stem] = probeSchema(fields, k);
  for (const [name, schema] of Object.entries(schemas)) fs.writeFileSync(path.join(dir, `${name}.schema.json`), JSON.stringify(schema, null, 2));
  return { dir, schemas };
}

/** A run's world: the server on its database, the kind's fields, and every value a tester stored that nobody has changed since. */
class World {
  fields: Field[] = [{ name: 'f0', type: 'string', old: [] }];
  kind: KindState = { stem: 'probe', old: [], dateField: 'refuelTime' };
  /** Names removed from the schema whose values stay in the records (hidden), never reused as old names. */
  hidden: string[] = [];
  /** Record id -> the values stored in it that no write has replaced. */
  live = new Map<number, Set<string | number>>();
  ids: number[] = [];
  names = 1;
  tokens = 0;
  s!: TestServer;
  token = '';
  schemas: Json = {};
  report: DataReport | undefined;
  readonly log: string[] = [];

  constructor(private readonly target: DbTarget) {}

  fresh(type: Field['type']): string | number {
    this.tokens++;
    return type === 'integer' ? 900_000 + this.tokens : `v${this.tokens}`;
  }

  async start(reuse?: { dataDir: string; schema: string }): Promise<void> {
    const { dir, schemas } = writeSchemas(this.fields, this.kind);
    this.schemas = schemas;
    if (reuse) this.report = await this.check(reuse);
    this.s = await startServer(this.target, { SCHEMAS_DIR: dir }, { keep: true, ...(reuse ? { reuse } : {}) });
    this.token = await this.s.login(ALICE.username, ALICE.password);
  }

  async check(storage: { dataDir: string; schema: string }): Promise<DataReport> {
    const store = await openStoredData({
      dataDir: storage.dataDir,
      databaseUrl: this.target.url,
      databaseSchema: this.target.url ? storage.schema : undefined,
    });
    if ('none' in store) throw new Error(store.none);
    try {
      return await reportStoredData(buildRegistry(this.schemas as Record<string, KindSchema>), store);
    } finally {
      await store.close();
    }
  }

  /** A schema change: the server restarts on the same database with the changed files. */
  async restart(): Promise<void> {
    const storage = this.s.storage;
    await this.close();
    await this.start(storage);
  }

  async close(): Promise<void> {
    await this.s.close();
    if (this.s.serverErrors.length > 0) throw new Error(`5xx answers: ${this.s.serverErrors.join(', ')}`);
  }

  async request(method: string, url: string, body?: Json): Promise<Json> {
    const res = await this.s.request(method, url, { token: this.token, ...(body ? { body } : {}) });
    if (res.status >= 500) throw new Error(`${method} ${url} -> ${res.status} ${JSON.stringify(res.body)}`);
    return { status: res.status, ...(res.body as Json) };
  }

  /** The record as the API answers it (data and warnings). */
  async read(id: number): Promise<Json> {
    const got = await this.request('GET', `${PATH}/${id}`);
    if (got['status'] !== 200) throw new Error(`GET ${id} -> ${got['status']} ${JSON.stringify(got)}`);
    return got;
  }

  async stored(id: number): Promise<Json> {
    const { rows } = await sql<{ data: string }>`SELECT data FROM rec_probe WHERE id = ${id}`.execute(this.s.app.db.kysely);
    return JSON.parse(rows[0]?.data ?? 'null') as Json;
  }
}

/** Runs one op on the world; returns a line for the failing sequence's log. */
async function apply(w: World, op: Op): Promise<string> {
  const pick = <T>(xs: T[], i: number): T | undefined => (xs.length === 0 ? undefined : xs[i % xs.length]);
  const field = 'field' in op ? pick(w.fields, op.field) : undefined;
  const taken = (name: string): boolean => w.fields.some((f) => f.name === name || f.old.includes(name));
  switch (op.t) {
    case 'create': {
      const body: Json = { refuelTime: `${DAY} 08:00:00`, probeTime: '2026-11-21 09:00:00' };
      const values = new Set<string | number>();
      w.fields.forEach((f, i) => {
        if (!op.fill[i % op.fill.length] && !f.required) return;
        const v = w.fresh(f.type);
        body[f.name] = v;
        values.add(v);
      });
      const res = await w.request('POST', PATH, body);
      if (res['code'] !== 200) throw new Error(`create refused: ${JSON.stringify(res)}`);
      w.ids.push(res['data'].id as number);
      w.live.set(res['data'].id as number, values);
      return `create ${JSON.stringify(body)}`;
    }
    case 'edit':
    case 'oldPhone': {
      const id = pick(w.ids, op.rec);
      if (id === undefined || field === undefined) return 'skip';
      // An old phone sends the value under the field's first old name, as its form named it.
      const sentName = op.t === 'oldPhone' ? (field.old[0] ?? field.name) : field.name;
      await edit(w, id, field, sentName);
      return `${op.t} #${id} ${sentName}`;
    }
    case 'add':
      w.fields.push({ name: `f${w.names++}`, type: 'string', old: [] });
      break;
    case 'remove':
      if (field === undefined || w.fields.length === 1) return 'skip';
      w.fields = w.fields.filter((f) => f !== field);
      w.hidden.push(field.name);
      break;
    case 'rename':
      if (field === undefined) return 'skip';
      field.old = [field.name, ...field.old];
      field.name = `f${w.names++}`;
      break;
    case 'merge': {
      const a = pick(w.fields, op.a);
      const b = pick(w.fields, op.b);
      if (a === undefined || b === undefined || a === b || a.type !== b.type) return 'skip';
      a.old = [...a.old, b.name, ...b.old];
      w.fields = w.fields.filter((f) => f !== b);
      break;
    }
    case 'renameOnto': {
      // Onto a name removed earlier whose values are still stored (hidden).
      const onto = pick(
        w.hidden.filter((n) => !taken(n)),
        op.hidden,
      );
      if (field === undefined || onto === undefined) return 'skip';
      w.hidden = w.hidden.filter((n) => n !== onto);
      field.old = [field.name, ...field.old];
      field.name = onto;
      break;
    }
    case 'winner':
      if (field === undefined || field.old.length === 0) return 'skip';
      field.winner = op.old ? 'old' : 'new';
      break;
    case 'retype':
      if (field === undefined) return 'skip';
      field.type = field.type === 'string' ? 'integer' : 'string';
      break;
    case 'require':
      if (field === undefined) return 'skip';
      field.required = !field.required;
      break;
    case 'pattern':
      if (field === undefined || field.type !== 'string') return 'skip';
      field.pattern = !field.pattern;
      break;
    case 'dateField':
      // The server lists the records by the other date (decision 073: through its own index).
      w.kind.dateField = w.kind.dateField === 'refuelTime' ? 'probeTime' : 'refuelTime';
      break;
    case 'renameKind':
      // A kind-level x-renamedFrom, oldest name last: the records stay where they are.
      w.kind.old = [w.kind.stem, ...w.kind.old];
      w.kind.stem = `probe${w.names++}`;
      break;
    case 'limit':
      // Values stored so far fall below it; new ones (fresh() counts up) fit.
      if (field === undefined || field.type !== 'integer') return 'skip';
      field.minimum = 900_000 + w.tokens + 1;
      break;
  }
  await w.restart();
  return `${op.t} -> ${JSON.stringify(w.fields)}`;
}

/** Sets one field of a record to a new value; the value it showed is the one replaced. */
async function edit(w: World, id: number, field: Field, sentName: string): Promise<void> {
  const before = await w.read(id);
  const v = w.fresh(field.type);
  const res = await w.request('PUT', PATH, { id, version: before['data'].version, [sentName]: v });
  if (res['code'] !== 200) throw new Error(`save of ${sentName} on #${id} refused: ${JSON.stringify(res)}`);
  const live = w.live.get(id) as Set<string | number>;
  const shown = before['data'][field.name] as string | number | undefined;
  if (shown !== undefined) live.delete(shown);
  live.add(v);
}

/** Where a stored key is accounted for by the schema check: a hidden (removed) field's, or a kept value's. */
function namedByCheck(w: World, key: string): boolean {
  const kind = w.report?.kinds.find((k) => k.kind === 'probe');
  return (kind?.findings ?? []).some(
    (f) => (f.reason === 'removed' && f.field === key) || ((f.reason === 'conflict' || f.reason === 'kept') && f.values.has(key)),
  );
}

/** The invariants, after every step. */
async function invariants(w: World): Promise<void> {
  const storage = w.s.storage;
  w.report = await w.check(storage);
  const list = await w.request('GET', `${PATH}/list?pageSize=1000`);
  if (list['code'] !== 200) throw new Error(`list -> ${JSON.stringify(list)}`);
  const listed = new Set((list['rows'] as Json[]).map((r) => r['id'] as number));
  // The day of the kind's date field lists every record (by whichever field is the kind's now).
  const day = w.kind.dateField === 'refuelTime' ? DAY : '2026-11-21';
  const onDay = await w.request('GET', `${PATH}/list?pageSize=1000&params[beginRefuelTime]=${day}&params[endRefuelTime]=${day}`);
  if (onDay['total'] !== w.ids.length) throw new Error(`${day} (${w.kind.dateField}) lists ${String(onDay['total'])} of ${w.ids.length} records`);
  // A sort under any name of a sortable field answers, as the field's own name does.
  for (const f of w.fields.filter((x) => x.type === 'integer'))
    for (const name of [f.name, ...f.old]) {
      const sorted = await w.request('GET', `${PATH}/list?pageSize=1000&orderByColumn=${name}&isAsc=desc`);
      if (sorted['code'] !== 200 || (sorted['rows'] as Json[]).length !== list['rows'].length)
        throw new Error(`sorting by ${name} -> ${JSON.stringify(sorted).slice(0, 300)}`);
    }
  for (const id of w.ids) {
    if (!listed.has(id)) throw new Error(`#${id} is not listed`);
    const got = await w.read(id);
    const shown = JSON.stringify([got['data'], got['warnings'] ?? []]);
    const stored = await w.stored(id);
    for (const v of w.live.get(id) ?? []) {
      const key = Object.keys(stored).find((k) => stored[k] === v);
      if (key === undefined) throw new Error(`#${id}: the stored value ${JSON.stringify(v)} is gone (row ${JSON.stringify(stored)})`);
      if (!shown.includes(JSON.stringify(v)) && !namedByCheck(w, key))
        throw new Error(`#${id}: ${JSON.stringify(v)} under '${key}' is neither shown (${shown}) nor named by the check`);
    }
    // A filter under each of a text field's names finds the record by the value it shows.
    for (const f of w.fields.filter((x) => x.type === 'string' && typeof got['data'][x.name] === 'string')) {
      for (const name of [f.name, ...f.old]) {
        const found = await w.request('GET', `${PATH}/list?pageSize=1000&${name}=${encodeURIComponent(got['data'][f.name] as string)}`);
        if (found['code'] !== 200 || !(found['rows'] as Json[]).some((r) => r['id'] === id))
          throw new Error(`#${id}: a filter ${name}=${String(got['data'][f.name])} does not find it: ${JSON.stringify(found).slice(0, 300)}`);
      }
    }
  }
}

/** One generated sequence on a fresh database: start, then each op and the invariants after it. */
export async function runSequence(target: DbTarget, ops: Op[]): Promise<void> {
  const w = new World(target);
  await w.start();
  try {
    for (const op of ops) {
      const line = await apply(w, op);
      w.log.push(line);
      if (line === 'skip') continue;
      // Another field's save, on every record, after every change: values kept (checked next).
      if (op.t !== 'create' && op.t !== 'edit' && op.t !== 'oldPhone')
        for (const id of w.ids) await edit(w, id, w.fields[w.fields.length - 1] as Field, (w.fields[w.fields.length - 1] as Field).name);
      await invariants(w);
    }
  } catch (e) {
    throw new Error(`${(e as Error).message}\n  after: ${w.log.join('\n         ')}`, { cause: e });
  } finally {
    await w.close().catch(() => {});
    fs.rmSync(w.s.storage.dataDir, { recursive: true, force: true });
  }
}
