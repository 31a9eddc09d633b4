import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './server.js';
import { checkSchemaFolder } from '../../src/server/schema-check/folder.js';
import type { DataReport } from '../../src/server/schema-check/data-report.js';
import { startVerdict } from '../../scripts/lib/start-gate.mjs';

// The schema files of issue 41's generator (schema-fuzz.ts): the generated kind as the admin's
// file declares it after the changes so far, its copy, and the start's verdict on them.

export type Json = Record<string, any>;

/** One field of the generated kind, as the admin's file declares it now. */
export interface Field {
  name: string;
  type: 'string' | 'integer';
  old: string[];
  winner?: 'new' | 'old';
  required?: boolean;
  /** Integer fields: values below it (stored before the limit) no longer fit. */
  minimum?: number;
  /** Text fields: a pattern every value the generator writes matches. */
  pattern?: boolean;
  /** A choice (enum): the choices offered now; those retired since are in `retired`. Prefixed by the field's first name, so no two fields share one. */
  choices?: string[];
  retired?: string[];
  /** Choice -> its label (x-labels), relabelled by the generator. */
  labels?: Record<string, string>;
  /** A choice that is a list of choices (multi-select). */
  multi?: boolean;
}

/** The generated kind as a whole: its file's name and earlier names (a kind renamed), its date field, and whether a copy of it exists. */
export interface KindState {
  stem: string;
  old: string[];
  dateField: 'refuelTime' | 'probeTime';
  copy?: boolean;
}

export const PATH = '/api/vtp/probeRecord';
export const COPY_PATH = '/api/vtp/probeCopy';

function fieldSchema(f: Field): Json {
  const choices = f.choices === undefined ? undefined : { enum: f.choices, 'x-labels': f.labels };
  const value =
    f.multi && choices ? { type: 'array', items: { type: 'string', enum: f.choices }, uniqueItems: true, 'x-labels': f.labels } : { type: f.type, ...choices };
  return {
    title: `Field ${f.name}`,
    ...value,
    ...(f.old.length > 0 ? { 'x-renamedFrom': f.old } : {}),
    ...(f.winner ? { 'x-renamedWinner': f.winner } : {}),
    ...(f.minimum !== undefined && f.type === 'integer' ? { minimum: f.minimum } : {}),
    ...(f.pattern && f.type === 'string' && !choices ? { pattern: '^v[0-9]+$', 'x-patternMessage': 'v and digits' } : {}),
  };
}

/** The generated kind's schema file: the fixed fields a kind needs, then the generated ones. */
function probeSchema(fields: Field[], k: KindState): Json {
  const base = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/fixtures/kinds/refuel.schema.json'), 'utf8')) as Json;
  const meta = base['x-kind'] as Json;
  Object.assign(meta, {
    apiPath: '/vtp/probeRecord',
    route: '/data/probe',
    sortable: fields.filter((f) => f.type === 'integer' && !f.choices).map((f) => f.name),
    filters: Object.fromEntries(fields.filter((f) => f.type === 'string').map((f) => [f.name, 'exact'])),
    card: { title: { text: 'Probe' }, lines: [{ label: 'Time', field: 'refuelTime', format: 'datetime-minute', fallback: 'N/A' }] },
    packages: [{ route: 'download_ProbesFiles', label: 'Probes', noun: 'Probe' }],
    dateField: k.dateField,
    attachments: { folder: 'probe_records/{vehicleNo}/Probe_{id}' },
  });
  delete meta['dataPage'];
  delete meta['workspace'];
  const props = base['properties'] as Json;
  for (const name of ['station', 'litres', 'pricePerLitre', 'totalPrice', 'remark']) delete props[name];
  props['probeTime'] = { title: 'Probe Time', type: 'string', format: 'datetime-text' };
  for (const f of fields) props[f.name] = fieldSchema(f);
  const required = fields.filter((f) => f.required).map((f) => f.name);
  return {
    ...base,
    $id: `${k.stem}.schema.json`,
    title: 'Probe Record',
    ...(k.old.length > 0 ? { 'x-renamedFrom': k.old } : {}),
    ...(required.length > 0 ? { required } : {}),
  };
}

/**
 * A kind copied from the generated one, fixing only what the check asks (issue 41): its own file,
 * API path, route, package route and attachment folder; not its earlier names.
 */
function copySchema(probe: Json): Json {
  const copy = structuredClone(probe);
  delete copy['x-renamedFrom'];
  Object.assign(copy, { $id: 'probecopy.schema.json', title: 'Probe Copy' });
  Object.assign(copy['x-kind'] as Json, {
    apiPath: '/vtp/probeCopy',
    route: '/data/probe-copy',
    packages: [{ route: 'download_ProbeCopiesFiles', label: 'Probe copies', noun: 'Probe copy' }],
    attachments: { folder: 'probecopy_records/{vehicleNo}/Copy_{id}' },
  });
  return copy;
}

/** The shipped schemas and the generated kinds, in a new folder. */
export function writeSchemas(fields: Field[], k: KindState): { dir: string; schemas: Json } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-fuzz-'));
  const schemas: Json = {};
  for (const f of fs.readdirSync(path.join(ROOT, 'schemas')).filter((n) => n.endsWith('.schema.json')))
    schemas[f.slice(0, -'.schema.json'.length)] = JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', f), 'utf8'));
  schemas[k.stem] = probeSchema(fields, k);
  if (k.copy) schemas['probecopy'] = copySchema(schemas[k.stem] as Json);
  for (const [name, schema] of Object.entries(schemas)) fs.writeFileSync(path.join(dir, `${name}.schema.json`), JSON.stringify(schema, null, 2));
  return { dir, schemas };
}

/**
 * The check's exit status on a folder and its report on the stored data, as `schemas:check --data`
 * computes it (scripts/schemas-check.ts), and what `npm start` does with it (scripts/start.mjs's
 * own gate): without a confirmation, and with the code it names.
 */
export function startOutcome(dir: string, report: DataReport | undefined): { exit: number; plain: string; confirmed: string } {
  const problems = checkSchemaFolder(dir, dir).problems;
  const exit = problems.length > 0 ? 1 : report?.needsDecision ? 2 : 0;
  return { exit, plain: startVerdict(exit, undefined, 'code'), confirmed: startVerdict(exit, 'code', 'code') };
}
