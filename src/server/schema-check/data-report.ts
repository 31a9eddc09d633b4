import { toSortableDateTime } from '../../shared/formats.js';
import type { Kind, KindProperty, KindRegistry, KindSchema } from '../../shared/kind-types.js';
import { toKind } from '../../shared/kinds.js';
import { fieldProblems, isMissing, keptValues, keysOf, preview, SCOPE_FIELDS, storedValue, valueProblem } from '../../shared/schema-evolution.js';
import type { RecordTableName } from '../db/types.js';
import type { ServedSchema, StoredData } from './stored-data.js';

// What the schema files would make of the records already stored (`npm run schemas:check -- --data`):
// per kind and field, how many records hold a value the files would not accept now, and why. Nothing
// breaks either way (docs/decisions/034); the report is for deciding before a deploy.

/** Why stored values do not fit the schema files. */
export type Reason = 'type' | 'enum' | 'limit' | 'required' | 'removed' | 'renamed' | 'conflict' | 'kept';

/** Reasons that need a decision when a change brings them: the others are information. */
const DECISION_REASONS: ReadonlySet<Reason> = new Set(['type', 'limit', 'required', 'removed']);

/** Whether a finding needs the admin's decision: a change brought it, or records hold two values and no x-renamedWinner says which is shown. */
export const findingNeedsDecision = (f: Pick<Finding, 'reason' | 'fresh'>): boolean =>
  f.reason === 'conflict' || (DECISION_REASONS.has(f.reason) && f.fresh > 0);

export interface Finding {
  field: string;
  reason: Reason;
  records: number;
  /** Of them, those the last served schema found nothing wrong with (this change's); all when none was served. */
  fresh: number;
  /** Up to 3 record ids, those of this change first. */
  examples: number[];
  /** What is wrong, in words (an example). */
  detail: string;
  /** For a retired choice, old names and removed fields: the values or names seen, with how many records each. */
  values: Map<string, number>;
}

export interface KindReport {
  kind: string;
  table: RecordTableName;
  total: number;
  /** The last served schema the data is compared with ('same' when it is this file). */
  served: { hash: string; servedAt: string } | 'none' | 'same';
  /** x-kind.dateField differs from the last served one: records move to the new field's dates at the next start. */
  dateField?: { from: string; to: string; moved: number };
  /** The kind's schema file (another name than the kind's for a renamed kind). */
  file: string;
  /** x-kind.apiPath or x-kind.route differ from the last served ones: the old ones redirect to them (decision 059). */
  moved: { what: 'API path' | 'app route'; from: string; to: string }[];
  findings: Finding[];
}

export interface DataReport {
  database: string;
  /** False when the database keeps no served schemas yet. */
  servedKnown: boolean;
  kinds: KindReport[];
  /** Record tables with rows whose kind has no schema file. */
  orphans: { table: RecordTableName; kind: string; records: number }[];
  /** Something changed by the files needs a decision: exit status 2. */
  needsDecision: boolean;
}

const EXAMPLES = 3;

/** value: the value (a retired choice) or name (an old or removed one) to count. */
type RecordFinding = Pick<Finding, 'field' | 'reason' | 'detail'> & { value?: string };

/** Which rule a value breaks, by asking valueProblem about one keyword at a time. */
function reasonOf(prop: KindProperty, value: unknown): Reason {
  if (prop.type !== undefined && valueProblem({ type: prop.type }, value) !== undefined) return 'type';
  if (Array.isArray(prop.enum) && valueProblem({ enum: prop.enum }, value) !== undefined) return 'enum';
  return 'limit';
}

/** What one record's stored data breaks of a kind's schema (its values under the names it reads them by). */
export function recordFindings(kind: Kind, data: Record<string, unknown>): RecordFinding[] {
  const out: RecordFinding[] = [];
  const props = kind.schema.properties;
  for (const field of kind.fields) {
    const holder = keysOf(kind, field).find((key) => Object.hasOwn(data, key));
    if (holder !== undefined && holder !== field && !isMissing(data[holder]) && !SCOPE_FIELDS.has(field))
      out.push({ field, reason: 'renamed', detail: `values under the old name '${holder}', read as '${field}'`, value: holder });
  }
  for (const { field, prop, value, problem } of fieldProblems(kind, (f) => storedValue(kind, data, f))) {
    const reason = isMissing(value) ? 'required' : reasonOf(prop, value);
    const detail = reason === 'required' ? 'no value, and the field is required' : problem;
    out.push({ field, reason, detail, ...(reason === 'enum' ? { value: preview(value) } : {}) });
  }
  for (const { field, key, value } of keptValues(kind, data)) {
    const reason = props[field]?.['x-renamedWinner'] === undefined ? 'conflict' : 'kept';
    out.push({ field, reason, detail: `'${key}' holds ${preview(value)}, kept and not shown`, value: key });
  }
  for (const [key, value] of Object.entries(data)) {
    if (Object.hasOwn(props, key) || kind.renamed.has(key) || SCOPE_FIELDS.has(key) || isMissing(value)) continue;
    out.push({ field: key, reason: 'removed', detail: 'no longer a property: the values are kept, hidden', value: key });
  }
  return out;
}

const keyOf = (f: Pick<RecordFinding, 'field' | 'reason'>): string => `${f.field}\0${f.reason}`;

function pathChanges(before: Kind, kind: Kind): KindReport['moved'] {
  const changes: KindReport['moved'] = [];
  if (before.meta.apiPath !== kind.meta.apiPath) changes.push({ what: 'API path', from: `/api${before.meta.apiPath}`, to: `/api${kind.meta.apiPath}` });
  if (before.meta.route !== kind.meta.route) changes.push({ what: 'app route', from: before.meta.route, to: kind.meta.route });
  return changes;
}

type Tally = Finding & { freshExamples: number[]; oldExamples: number[] };

/** Reads every stored record of every kind once and reports what the schema files make of it. */
export async function reportStoredData(registry: KindRegistry, store: StoredData): Promise<DataReport> {
  const tables = new Set(await store.recordTables());
  const served = await store.servedSchemas();
  const kinds: KindReport[] = [];
  for (const kind of registry.values()) kinds.push(await kindReport(kind, served, tables, store));
  const orphans: DataReport['orphans'] = [];
  for (const table of tables) {
    const name = table.slice('rec_'.length);
    if (registry.has(name)) continue;
    const records = await store.count(table);
    if (records > 0) orphans.push({ table, kind: name, records });
  }
  const needsDecision = orphans.length > 0 || kinds.some((k) => (k.dateField !== undefined && k.total > 0) || k.findings.some(findingNeedsDecision));
  return { database: store.describe, servedKnown: served !== undefined, kinds, orphans, needsDecision };
}

/** The kind as the last served schema had it, when that differs from the file and still reads. */
function servedKind(kind: Kind, last: ServedSchema | undefined): Kind | undefined {
  if (last === undefined || last.hash === kind.hash) return undefined;
  try {
    return toKind(kind.name, JSON.parse(last.schema) as KindSchema);
  } catch {
    return undefined;
  }
}

/** One kind's report: its records read once, their findings tallied by field and reason. */
async function kindReport(kind: Kind, served: Map<string, ServedSchema> | undefined, tables: ReadonlySet<string>, store: StoredData): Promise<KindReport> {
  const table: RecordTableName = `rec_${kind.name}`;
  const last = served?.get(kind.name);
  const before = servedKind(kind, last);
  const report: KindReport = {
    kind: kind.name,
    table,
    total: 0,
    served: last === undefined ? 'none' : last.hash === kind.hash ? 'same' : { hash: last.hash, servedAt: last.servedAt },
    file: kind.file,
    moved: before === undefined ? [] : pathChanges(before, kind),
    findings: [],
  };
  const dateFrom = before?.meta.dateField;
  if (dateFrom !== undefined && dateFrom !== kind.meta.dateField) report.dateField = { from: dateFrom, to: kind.meta.dateField, moved: 0 };
  const byKey = new Map<string, Tally>();
  if (tables.has(table)) {
    for await (const row of store.rows(table)) {
      report.total++;
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(row.data) as Record<string, unknown>;
      } catch {
        continue;
      }
      if (report.dateField && toSortableDateTime(storedValue(kind, data, kind.meta.dateField)) !== row.record_date) report.dateField.moved++;
      const now = recordFindings(kind, data);
      if (now.length === 0) continue;
      // Unchanged schema: nothing is this change's. No served schema: everything may be.
      const known = report.served === 'same' ? undefined : before === undefined ? new Set<string>() : new Set(recordFindings(before, data).map(keyOf));
      for (const f of now) tally(byKey, f, row.id, known !== undefined && !known.has(keyOf(f)));
    }
  }
  const fieldOrder = (field: string): number => {
    const i = kind.fields.indexOf(field);
    return i === -1 ? kind.fields.length : i;
  };
  report.findings = [...byKey.values()]
    .map(({ freshExamples, oldExamples, ...f }) => ({ ...f, examples: [...freshExamples, ...oldExamples].slice(0, EXAMPLES) }))
    .sort((a, b) => fieldOrder(a.field) - fieldOrder(b.field) || a.field.localeCompare(b.field) || a.reason.localeCompare(b.reason));
  return report;
}

/** Counts one record's finding under its field and reason, keeping the first examples of this change and of before. */
function tally(byKey: Map<string, Tally>, f: RecordFinding, id: number, fresh: boolean): void {
  let agg = byKey.get(keyOf(f));
  if (agg === undefined) {
    agg = { field: f.field, reason: f.reason, records: 0, fresh: 0, examples: [], detail: f.detail, values: new Map(), freshExamples: [], oldExamples: [] };
    byKey.set(keyOf(f), agg);
  }
  agg.records++;
  if (fresh) {
    agg.fresh++;
    if (agg.freshExamples.length < EXAMPLES) agg.freshExamples.push(id);
  } else if (agg.oldExamples.length < EXAMPLES) agg.oldExamples.push(id);
  if (f.value !== undefined) agg.values.set(f.value, (agg.values.get(f.value) ?? 0) + 1);
}

/** A reason's name in the table, where it is not the reason itself. */
const REASON_WORDS: Partial<Record<Reason, string>> = { enum: 'retired choice', conflict: 'two values', kept: 'kept value' };

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function topValues(values: Map<string, number>, quote: boolean): string {
  const sorted = [...values.entries()].sort((a, b) => b[1] - a[1]);
  const shown = sorted.slice(0, 3).map(([v, n]) => `${quote ? `'${v}'` : v} (${n})`);
  return `${shown.join(', ')}${sorted.length > 3 ? `, and ${sorted.length - 3} more` : ''}`;
}

/** The line's words: what is wrong, and what the admin may do about it. */
function describeFinding(f: Finding, kind: string): string {
  switch (f.reason) {
    case 'enum':
      return `${topValues(f.values, false)} no longer among the choices: kept and shown as stored; label ${f.values.size === 1 ? 'it' : 'them'} in x-labels or add ${f.values.size === 1 ? 'it' : 'them'} back to enum`;
    case 'renamed':
      return `values under ${topValues(f.values, true)}, read as '${f.field}'`;
    case 'conflict':
      return `a value under ${topValues(f.values, true)} as well as the one shown as '${f.field}': both are kept; say which is shown with "x-renamedWinner": "new" or "old" in properties.${f.field}`;
    case 'kept':
      return `values under ${topValues(f.values, true)} kept, not shown (x-renamedWinner): named in each record's warnings and history`;
    case 'removed':
      return `values kept in the records, hidden: '${f.field}' is no longer a property of ${kind}.schema.json (add it back, or to a property's x-renamedFrom, to see them again)`;
    case 'required':
      return 'no value: the record opens and saves as it is (an edit is checked only for what it changes); new records must have it';
    default:
      return `e.g. ${f.detail}: kept and shown as stored, with a warning`;
  }
}

function table(rows: string[][], indent: string): string[] {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  return rows.map((r) => `${indent}${r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c] ?? 0))).join('  ')}`.trimEnd());
}

/** A kind's first lines: its records, what they are compared with, and where its paths moved. */
function kindHeading(k: KindReport, servedKnown: boolean): string[] {
  const compared =
    k.served === 'same'
      ? 'the schema file is the one last served'
      : k.served === 'none'
        ? servedKnown
          ? 'no schema served yet for this kind'
          : 'no schema served yet'
        : `compared with the schema last served (${k.served.hash}, served ${k.served.servedAt})`;
  const renamed = k.file === `${k.kind}.schema.json` ? '' : ` (${k.file}, renamed: its records keep the name ${k.kind})`;
  return [
    `${k.kind}${renamed}: ${k.total === 0 ? 'no records' : plural(k.total, 'record')} (${k.table}); ${compared}`,
    ...k.moved.map((m) => `    ${m.what} changed from ${m.from} to ${m.to}: the old one redirects to it, for old phones, bookmarks and links`),
  ];
}

/** The report as lines for a terminal: a table per kind, what it means, and a final line. */
export function formatDataReport(report: DataReport): string[] {
  const lines: string[] = [`Stored records in ${report.database}:`];
  if (!report.servedKnown) lines.push('  (no schema served yet: the database keeps no earlier schema files, so every finding is counted as a change)');
  let decisions = 0;
  for (const k of report.kinds) {
    lines.push('', ...kindHeading(k, report.servedKnown));
    if (k.dateField) {
      const needs = k.total > 0;
      if (needs) decisions++;
      lines.push(
        `  ${needs ? '!' : ' '} date field changed from ${k.dateField.from} to ${k.dateField.to}: the day changes for ${plural(k.dateField.moved, 'record')} of ${k.total} (lists, day counts and downloads go by the new field; nothing is re-filed, so a server still on the old one stays right)`,
      );
    }
    if (k.findings.length === 0) {
      if (k.total > 0) lines.push('    every record fits');
      continue;
    }
    const rows = [[' ', 'field', 'finding', 'records', 'this change', 'e.g. records', 'what it means']];
    for (const f of k.findings) {
      const needs = findingNeedsDecision(f);
      if (needs) decisions++;
      rows.push([
        needs ? '!' : ' ',
        f.field,
        REASON_WORDS[f.reason] ?? f.reason,
        String(f.records),
        k.served === 'same' ? '0' : String(f.fresh),
        f.examples.map((id) => `#${id}`).join(', '),
        describeFinding(f, k.kind),
      ]);
    }
    lines.push(...table(rows, '  '));
  }
  for (const o of report.orphans) {
    decisions++;
    lines.push(
      '',
      `! ${o.table}: ${plural(o.records, 'record')} of kind '${o.kind}', which has no schema file: unreachable until ${o.kind}.schema.json is back; the rows are kept`,
    );
  }
  const findings = report.kinds.some((k) => k.findings.length > 0 || k.dateField || k.moved.length > 0) || report.orphans.length > 0;
  if (findings) {
    lines.push(
      '',
      'Nothing breaks: records keep their values. The app shows a value the schema no longer accepts as stored, with a warning,',
      'and saves the record without touching it; only a field someone changes must fit the new schema.',
      'Lines marked ! come with this change and need a decision: keep the change (the records stay as they are until edited),',
      'edit the records, or change the schema file (add a choice back, relax a limit, name an old field in x-renamedFrom).',
    );
  }
  const total = report.kinds.reduce((n, k) => n + k.total, 0);
  lines.push(
    '',
    decisions > 0
      ? `schemas:check: ${plural(total, 'stored record')} checked; ${plural(decisions, 'change needs', 'changes need')} a decision (lines marked !).`
      : `schemas:check: ${plural(total, 'stored record')} checked; the stored data fits the schema files${findings ? ' (the findings above are information)' : ''}.`,
  );
  return lines;
}
