import fs from 'node:fs';
import fc from 'fast-check';
import * as XLSX from 'xlsx';
import { World } from './schema-fuzz-world.js';
import { COPY_PATH, PATH, type Field, type Json } from './schema-fuzz-files.js';
import type { DbTarget } from './server.js';
import { labelOf } from '../../src/shared/schema-evolution.js';

// A generator of schema changes with records, edits and old-phone writes between them (issue 41):
// random sequences run against the real server, restarted on one database after each change, and
// after every step no stored value is lost (each is in a read, or named by the schema check), every
// record lists, opens and saves a change of another field, a filter under any of a field's names
// finds the record, no answer is a 5xx, and the check's exit agrees with what a start does; at the
// end of a sequence the day package (JSON and Excel) holds every value a read shows.

/** What the generator does next; indices pick among what exists then (modulo), so shrinking keeps sequences valid. */
export type Op =
  | { t: 'create'; fill: boolean[] }
  | { t: 'edit'; rec: number; field: number }
  | { t: 'oldPhone'; rec: number; field: number }
  | { t: 'attach'; rec: number }
  | { t: 'add'; choice?: boolean }
  | { t: 'remove'; field: number }
  | { t: 'rename'; field: number }
  | { t: 'merge'; a: number; b: number }
  | { t: 'renameOnto'; field: number; hidden: number }
  | { t: 'swap'; a: number; b: number }
  | { t: 'winner'; field: number; old: boolean }
  | { t: 'retype'; field: number }
  | { t: 'require'; field: number }
  | { t: 'limit'; field: number }
  | { t: 'pattern'; field: number }
  | { t: 'relabel'; field: number; choice: number }
  | { t: 'retire'; field: number; choice: number }
  | { t: 'multi'; field: number }
  | { t: 'dateField' }
  | { t: 'renameKind' }
  | { t: 'copyKind' };

const idx = fc.nat({ max: 7 });
/** SCHEMA_FUZZ_WITHOUT=winner,retype leaves those ops out (a main that does not know x-renamedWinner yet, say). */
const without = new Set((process.env['SCHEMA_FUZZ_WITHOUT'] ?? '').split(','));
const op = <T extends Json>(t: Op['t'], fields: T, weight: number) => ({
  arbitrary: fc.record({ t: fc.constant(t), ...fields }) as unknown as fc.Arbitrary<Op>,
  weight: without.has(t) ? 0 : weight,
});
export const opArb: fc.Arbitrary<Op> = fc.oneof(
  op('create', { fill: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }) }, 3),
  op('edit', { rec: idx, field: idx }, 3),
  op('oldPhone', { rec: idx, field: idx }, 1),
  op('attach', { rec: idx }, 1),
  op('add', { choice: fc.boolean() }, 2),
  op('remove', { field: idx }, 1),
  op('rename', { field: idx }, 2),
  op('merge', { a: idx, b: idx }, 2),
  op('renameOnto', { field: idx, hidden: idx }, 2),
  op('swap', { a: idx, b: idx }, 1),
  op('winner', { field: idx, old: fc.boolean() }, 1),
  op('retype', { field: idx }, 1),
  op('require', { field: idx }, 1),
  op('limit', { field: idx }, 1),
  op('pattern', { field: idx }, 1),
  op('relabel', { field: idx, choice: idx }, 1),
  op('retire', { field: idx, choice: idx }, 1),
  op('multi', { field: idx }, 2),
  op('dateField', {}, 1),
  op('renameKind', {}, 1),
  op('copyKind', {}, 1),
);

const DAY = '2026-11-20';
const pick = <T>(xs: T[], i: number): T | undefined => (xs.length === 0 ? undefined : xs[i % xs.length]);

/** A record written by a tester: creates (in the copied kind too, which must never show the original's), edits and old phones' edits. */
async function write(w: World, op: Extract<Op, { t: 'create' | 'edit' | 'oldPhone' | 'attach' }>): Promise<string> {
  if (op.t === 'attach') {
    const id = pick(w.ids, op.rec);
    return id === undefined ? 'skip' : `attach ${await w.attach(id)}`;
  }
  if (op.t !== 'create') {
    const id = pick(w.ids, op.rec);
    const field = pick(w.fields, op.field);
    if (id === undefined || field === undefined) return 'skip';
    // An old phone sends the value under the field's first old name, as its form named it.
    const sentName = op.t === 'oldPhone' ? (field.old[0] ?? field.name) : field.name;
    await w.edit(id, field, sentName);
    return `${op.t} #${id} ${sentName}`;
  }
  const body: Json = { refuelTime: `${DAY} 08:00:00`, probeTime: '2026-11-21 09:00:00' };
  const values = new Set<string>();
  w.fields.forEach((f, i) => {
    if (!op.fill[i % op.fill.length] && !f.required) return;
    const v = w.fresh(f);
    body[f.name] = v;
    values.add(JSON.stringify(v));
  });
  const res = await w.request('POST', PATH, body);
  if (res['code'] !== 200) throw new Error(`create refused: ${JSON.stringify(res)}`);
  w.ids.push(res['data'].id as number);
  w.live.set(res['data'].id as number, values);
  if (w.kind.copy) {
    const copy = await w.request('POST', COPY_PATH, { ...body, refuelTime: `${DAY} 07:00:00`, probeTime: '2026-11-21 07:00:00' });
    if (copy['code'] !== 200) throw new Error(`create in the copy refused: ${JSON.stringify(copy)}`);
  }
  return `create ${JSON.stringify(body)}`;
}

/** A change of a field's name: renames, merges, a rename onto a removed name, and the two-release swap. Returns false where it does not apply. */
async function rename(w: World, op: Extract<Op, { t: 'rename' | 'merge' | 'renameOnto' | 'swap' }>): Promise<boolean> {
  const taken = (name: string): boolean => w.fields.some((f) => f.name === name || f.old.includes(name));
  const moveTo = (f: Field, name: string): void => {
    f.old = [f.name, ...f.old];
    f.name = name;
  };
  if (op.t === 'rename') {
    const f = pick(w.fields, op.field);
    if (f !== undefined) moveTo(f, `f${w.names++}`);
    return f !== undefined;
  }
  if (op.t === 'renameOnto') {
    // Onto a name removed earlier whose values are still stored (hidden).
    const f = pick(w.fields, op.field);
    const onto = pick(
      w.hidden.filter((n) => !taken(n)),
      op.hidden,
    );
    if (f === undefined || onto === undefined) return false;
    w.hidden = w.hidden.filter((n) => n !== onto);
    moveTo(f, onto);
    return true;
  }
  const a = pick(w.fields, op.a);
  const b = pick(w.fields, op.b);
  if (a === undefined || b === undefined || a === b) return false;
  if (op.t === 'merge') {
    // Two fields of one kind of value; choices stay their field's own.
    if (a.type !== b.type || a.choices || b.choices) return false;
    a.old = [...a.old, b.name, ...b.old];
    w.fields = w.fields.filter((f) => f !== b);
    return true;
  }
  // The swap in two releases: a moves to a new name, then b takes a's name (a's old name freed).
  const freed = a.name;
  moveTo(a, `f${w.names++}`);
  await w.restart();
  await saveAll(w);
  a.old = a.old.filter((n) => n !== freed);
  if (a.old.length === 0) delete a.winner;
  moveTo(b, freed);
  return true;
}

/** A change of what a field holds: type, required, limit, pattern, its choices' labels and retirement, one choice or a list. */
function reshape(w: World, op: Extract<Op, { t: 'retype' | 'require' | 'limit' | 'pattern' | 'relabel' | 'retire' | 'multi' | 'winner' }>): boolean {
  const f = pick(w.fields, op.field);
  if (f === undefined) return false;
  switch (op.t) {
    case 'winner':
      if (f.old.length === 0) return false;
      f.winner = op.old ? 'old' : 'new';
      return true;
    case 'retype':
      if (f.choices) return false;
      f.type = f.type === 'string' ? 'integer' : 'string';
      return true;
    case 'require':
      f.required = !f.required;
      return true;
    case 'limit':
      // Values stored so far fall below it; new ones (fresh() counts up) fit.
      if (f.type !== 'integer') return false;
      f.minimum = 900_000 + w.tokens + 1;
      return true;
    case 'pattern':
      if (f.type !== 'string' || f.choices) return false;
      f.pattern = !f.pattern;
      return true;
    case 'multi':
      if (!f.choices) return false;
      f.multi = !f.multi;
      return true;
    default: {
      const c = pick(f.choices ?? [], op.choice);
      if (c === undefined || f.choices === undefined || f.labels === undefined) return false;
      if (op.t === 'relabel') f.labels[c] = `L${c}-${w.names++}`;
      else {
        // Retired: no longer offered; a new choice takes its place so that the form still offers some.
        f.choices = [...f.choices.filter((x) => x !== c), `${c}r`];
        f.retired = [...(f.retired ?? []), c];
        f.labels[`${c}r`] = `L${c}r`;
      }
      return true;
    }
  }
}

/** Runs one op on the world; returns a line for the failing sequence's log. */
async function apply(w: World, op: Op): Promise<string> {
  switch (op.t) {
    case 'create':
    case 'edit':
    case 'oldPhone':
    case 'attach':
      return write(w, op);
    case 'add': {
      const name = `f${w.names++}`;
      const choices = op.choice ? ['a', 'b', 'c'].map((c) => `${name}${c}`) : undefined;
      w.fields.push({ name, type: 'string', old: [], ...(choices ? { choices, labels: Object.fromEntries(choices.map((c) => [c, `L${c}`])) } : {}) });
      break;
    }
    case 'remove': {
      const f = pick(w.fields, op.field);
      if (f === undefined || w.fields.length === 1) return 'skip';
      w.fields = w.fields.filter((x) => x !== f);
      w.hidden.push(f.name);
      break;
    }
    case 'rename':
    case 'merge':
    case 'renameOnto':
    case 'swap':
      if (!(await rename(w, op))) return 'skip';
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
    case 'copyKind':
      if (w.kind.copy) return 'skip';
      w.kind.copy = true;
      break;
    default:
      if (!reshape(w, op)) return 'skip';
  }
  await w.restart();
  return `${op.t} -> ${JSON.stringify(w.fields)}`;
}

/** Another field's save (than the one changed, where there is one), on every record, after a change: values kept (checked next). */
async function saveAll(w: World, changed?: Field): Promise<void> {
  const other = w.fields.filter((f) => f !== changed).at(-1) ?? (w.fields.at(-1) as Field);
  for (const id of w.ids) await w.edit(id, other, other.name);
}

/**
 * Where a stored key is accounted for by the schema check alone: a hidden (removed) field's. A
 * value kept under another of a property's names (the check's two values or kept value) must be
 * in the read and the export too, in their warnings and keptValues (decisions 054 and 074).
 */
function namedByCheck(w: World, key: string): boolean {
  const kind = w.report?.kinds.find((k) => k.kind === 'probe');
  return (kind?.findings ?? []).some((f) => f.reason === 'removed' && f.field === key);
}

/** Each of a record's live values is stored, and is in `shown` (a read, an export) or named by the check. */
async function accounted(w: World, id: number, shown: string, where: string): Promise<void> {
  const stored = await w.stored(id);
  for (const v of w.live.get(id) ?? []) {
    const key = Object.keys(stored).find((k) => JSON.stringify(stored[k]) === v);
    if (key === undefined) throw new Error(`#${id}: the stored value ${v} is gone (row ${JSON.stringify(stored)})`);
    if (!shown.includes(v) && !namedByCheck(w, key)) throw new Error(`#${id}: ${v} under '${key}' is neither in ${where} (${shown}) nor named by the check`);
  }
}

/** A filter under each of a field's names finds the record by the value it shows (a list: by one of its choices). */
async function filtersFind(w: World, id: number, data: Json): Promise<void> {
  for (const f of w.fields.filter((x) => x.type === 'string')) {
    const value = data[f.name] as unknown;
    // A multi-select is answered as a list, a single value stored while it was one choice too (decision 074).
    if (f.multi && value !== undefined && !Array.isArray(value))
      throw new Error(`#${id}: ${f.name} is a list of choices, answered as ${JSON.stringify(value)}`);
    const asked = f.multi ? (Array.isArray(value) ? (value[0] as string | undefined) : undefined) : typeof value === 'string' ? value : undefined;
    if (asked === undefined) continue;
    for (const name of [f.name, ...f.old]) {
      const found = await w.request('GET', `${PATH}/list?pageSize=1000&${name}=${encodeURIComponent(asked)}`);
      if (found['code'] !== 200 || !(found['rows'] as Json[]).some((r) => r['id'] === id))
        throw new Error(`#${id}: a filter ${name}=${asked} does not find it: ${JSON.stringify(found).slice(0, 300)}`);
    }
  }
}

const dayOf = (w: World): string => (w.kind.dateField === 'refuelTime' ? DAY : '2026-11-21');

/** The invariants, after every step. */
async function invariants(w: World): Promise<void> {
  w.report = await w.check(w.s.storage);
  const list = await w.request('GET', `${PATH}/list?pageSize=1000`);
  if (list['code'] !== 200) throw new Error(`list -> ${JSON.stringify(list)}`);
  const listed = new Set((list['rows'] as Json[]).map((r) => r['id'] as number));
  // The day of the kind's date field lists every record (by whichever field is the kind's now).
  const day = dayOf(w);
  const onDay = await w.request('GET', `${PATH}/list?pageSize=1000&params[beginRefuelTime]=${day}&params[endRefuelTime]=${day}`);
  if (onDay['total'] !== w.ids.length) throw new Error(`${day} (${w.kind.dateField}) lists ${String(onDay['total'])} of ${w.ids.length} records`);
  // A copied kind has its own records: none of the original's.
  if (w.kind.copy) {
    const copies = await w.request('GET', `${COPY_PATH}/list?pageSize=1000`);
    if ((copies['rows'] as Json[]).some((r) => r['refuelTime'] === `${DAY} 08:00:00`)) throw new Error(`the copied kind lists the original's records`);
  }
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
    // Shown: the data, and the values its warnings say it keeps (as the app shows them, decision 074).
    const kept = ((got['warnings'] ?? []) as Json[]).map((x) => x['kept']?.value as unknown);
    await accounted(w, id, JSON.stringify([got['data'], kept]), 'the read');
    await filtersFind(w, id, got['data'] as Json);
  }
}

/** At the end of a sequence: the day package ships every record, each live value in its JSON or named by the check, and its sheet shows what a read shows. */
async function exportsHold(w: World): Promise<void> {
  if (w.ids.length === 0) return;
  w.report = await w.check(w.s.storage);
  const files = await w.dayPackage('download_ProbesFiles', dayOf(w));
  // Each record's files ship with it, whatever was renamed since; the copied kind's records, which have the same ids, ship none of them.
  for (const [id, names] of w.files)
    for (const name of names)
      if (!files.some((f) => f.name.endsWith(`/Probe_${id}/${name}`)))
        throw new Error(`#${id}: ${name} is not in the day package (${files.map((f) => f.name).join(', ')})`);
  const copied = w.kind.copy ? await w.dayPackage('download_ProbeCopiesFiles', dayOf(w)) : [];
  const leaked = copied.filter((f) => f.name.startsWith('attachments/'));
  if (leaked.length > 0) throw new Error(`the copied kind's package ships ${leaked.map((f) => f.name).join(', ')}`);
  const records = JSON.parse(files.find((f) => f.name.endsWith('.json'))?.bytes.toString('utf8') ?? '[]') as Json[];
  const book = XLSX.read(files.find((f) => f.name.endsWith('.xlsx'))?.bytes, { type: 'buffer' });
  const sheet = JSON.stringify(XLSX.utils.sheet_to_json(book.Sheets[book.SheetNames[0] as string] as XLSX.WorkSheet, { header: 1 }));
  const props = (w.schemas[w.kind.stem] as Json)['properties'] as Json;
  for (const id of w.ids) {
    const entry = records.find((r) => r['id'] === id);
    if (entry === undefined) throw new Error(`#${id} is not in the day package (${records.length} records)`);
    await accounted(w, id, JSON.stringify(entry), 'the day package');
    const data = (await w.read(id))['data'] as Json;
    for (const f of w.fields) {
      const value = data[f.name] as unknown;
      if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
      const cell = labelOf(props[f.name], value);
      const text = typeof value === 'number' ? String(value) : JSON.stringify(cell);
      if (!sheet.includes(text)) throw new Error(`#${id}: ${f.name} = ${JSON.stringify(value)} is not in the package's sheet as ${text}`);
    }
  }
}

/** One generated sequence on a fresh database: start, then each op and the invariants after it, and the exports at the end. */
export async function runSequence(target: DbTarget, ops: Op[]): Promise<void> {
  const w = new World(target);
  await w.start();
  try {
    for (const op of ops) {
      const line = await apply(w, op);
      w.log.push(line);
      if (line === 'skip') continue;
      if (!['create', 'edit', 'oldPhone', 'attach'].includes(op.t)) await saveAll(w, 'field' in op ? pick(w.fields, op.field) : undefined);
      await invariants(w);
    }
    await exportsHold(w);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n  after: ${w.log.join('\n         ')}`, { cause: e });
  } finally {
    await w.close().catch(() => {});
    fs.rmSync(w.s.storage.dataDir, { recursive: true, force: true });
  }
}
