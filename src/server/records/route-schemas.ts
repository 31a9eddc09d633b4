import { MAX_ID, IF_MATCH, recordId, recordVersion } from '../api-docs/parameters.js';
import { inputRef, recordEnvelopeOf, recordRef } from '../api-docs/kind-schemas.js';
import { envelope, errorResponses, listEnvelope, refused } from '../http/envelope.js';
import { CONTRACT_TIME_SCHEMA } from '../http/contract-time.js';
import { message } from '../http/route-validation.js';
import type { Kind } from '../../shared/kind-types.js';
import { isMultiSelect } from '../../shared/field-vocabulary.js';
import { isNumberField, MAX_PAGE_SIZE } from './list-query.js';

// The records routes' schemas (records/routes.ts registers them): they document the API, validate
// the input and serialise the answers.

/** The most ids one delete may name. */
const MAX_IDS = 1000;

/** A pattern for one word of `words`, or several comma-separated (any case when asked). */
function listOf(words: string[], anyCase = false): string {
  const one = words
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .map((w) => (anyCase ? [...w].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c)).join('') : w));
  const alt = `(${one.join('|')})`;
  return `^ *${alt} *(, *${alt} *)*$`;
}

const IF_MATCH_HEADER = { type: 'object', properties: { 'if-match': IF_MATCH } };

/** A 409 of an update or a delete: the current record and, per field, what conflicts. */
function conflictSchema(kind: Kind) {
  return {
    ...envelope({ type: 'object', properties: { current: { $ref: recordRef(kind) }, conflicts: { type: 'array', items: { $ref: 'FieldConflict#' } } } }),
    description: 'A field you changed was changed by someone else since your version: data holds the current record and, per field, base, theirs and yours.',
  };
}

/** The list's query: paging, sorting, the date range and the kind's declared filters. */
function listQueryOf(kind: Kind): Record<string, unknown> {
  const { begin, end } = kind.meta.rangeParams;
  const sortable = [...new Set([kind.meta.dateField, 'id', ...(kind.meta.sortable ?? [])])];
  // Old names (x-renamedFrom) still sort and filter, as the property they moved to: lists kept on
  // phones and in bookmarks from before a rename (docs/decisions/054).
  const oldNames = (field: string): string[] => kind.schema.properties[field]?.['x-renamedFrom'] ?? [];
  const sortNames = [...sortable, ...sortable.flatMap(oldNames)];
  const dateBound = (description: string) => ({ type: 'string', format: 'datetime-text', description });
  const listQuery: Record<string, unknown> = {
    pageNum: {
      type: 'integer',
      minimum: 0,
      maximum: 1_000_000,
      default: 1,
      description: 'Page number from 1 (0 reads as 1, as RuoYi does)',
      ...message('must be a whole number from 1 to 1000000', '必须是 1 到 1000000 之间的整数'),
    },
    pageSize: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 10, description: `Rows per page, 1 to ${MAX_PAGE_SIZE}` },
    orderByColumn: {
      type: 'string',
      pattern: listOf(sortNames),
      description: `Sort column (default: newest first by the date field), or several as a,b: ${sortable.join(', ')}`,
      ...message(
        `must be one of the columns ${kind.meta.titles.list} can be sorted by (${sortable.join(', ')}), or several of them as a,b`,
        `必须是可排序的列之一（${sortable.join(', ')}），或以 a,b 形式给出其中几列`,
      ),
    },
    isAsc: {
      type: 'string',
      pattern: listOf(['asc', 'desc', 'ascending', 'descending'], true),
      description: 'asc or desc (or ascending, descending; any case); one per column, or one for all',
      ...message(
        'must be asc or desc (or ascending, descending), one for all columns or one per column as asc,desc',
        '必须是 asc 或 desc（或 ascending、descending），所有列一个，或每列一个（如 asc,desc）',
      ),
    },
    projectName: { type: 'string', description: 'Only your own project is allowed (else 403); every list is scoped to it' },
    [`params[${begin}]`]: dateBound(`From (${kind.meta.dateField}), inclusive; a bare day means from 00:00:00`),
    [`params[${end}]`]: dateBound(`To (${kind.meta.dateField}), inclusive; a bare day means to 23:59:59`),
    'params[beginTime]': dateBound(`The same as params[${begin}]`),
    'params[endTime]': dateBound(`The same as params[${end}]`),
  };
  for (const [field, how] of Object.entries(kind.meta.filters ?? {})) {
    const title = kind.schema.properties[field]?.title ?? field;
    listQuery[field] = isNumberField(kind, field)
      ? { type: 'number', description: `Filter: equal to ${title}` }
      : {
          type: 'string',
          maxLength: 200,
          description: `Filter: ${isMultiSelect(kind.schema.properties[field]) ? 'holds any of (comma-separated)' : how === 'exact' ? 'equal to' : 'contains (any case)'} ${title}`,
        };
    for (const old of oldNames(field)) listQuery[old] = { ...(listQuery[field] as object), description: `The same as ${field} (its earlier name)` };
  }
  return listQuery;
}

/** A version in a record's history. */
const HISTORY_ENTRY = {
  type: 'object',
  properties: {
    version: { type: 'integer' },
    baseVersion: { type: ['integer', 'null'] },
    op: { type: 'string', enum: ['create', 'update', 'delete'] },
    changedBy: { type: 'string' },
    changedAt: CONTRACT_TIME_SCHEMA,
    schemaHash: {
      type: ['string', 'null'],
      description: "The version of the kind's schema file this version was saved under (null: saved before versions were kept)",
    },
    data: { type: 'object', additionalProperties: true },
  },
};

const IDEMPOTENCY_KEY = {
  type: 'string',
  pattern: '^[\\w.:-]{1,200}$',
  description: 'A key the client makes per record (1-200 letters, digits, -_.:); the same key again answers the record it made',
  ...message('must be 1-200 letters, digits or - _ . :', '必须是 1-200 个字母、数字或 - _ . :'),
};

/** One id or several of a delete. */
const IDS = {
  type: 'array',
  items: recordId(`A record id, 1 to ${MAX_ID}`),
  minItems: 1,
  maxItems: MAX_IDS,
  description: `One id, or several comma-separated (1,2,3; at most ${MAX_IDS}), each 1 to ${MAX_ID}`,
  ...message(`must be one id or at most ${MAX_IDS} comma-separated ids`, `必须是一个 id，或最多 ${MAX_IDS} 个以逗号分隔的 id`),
};

/** The six routes' schemas of a kind, each tagged with the kind's title. */
export function recordSchemas(kind: Kind) {
  const title = kind.schema.title;
  const record = recordRef(kind);
  const idParam = { type: 'object', properties: { id: recordId(`The record id, 1 to ${MAX_ID}`) }, required: ['id'] };
  // The kind's fields (checked by the record validator), and the update's own id and version.
  const updateBody = {
    type: 'object',
    properties: {
      id: recordId(`The id of the ${title} to change, 1 to ${MAX_ID}`),
      version: recordVersion('The version the edit is based on (or send If-Match)'),
    },
    required: ['id'],
  };
  const schemas = {
    list: {
      summary: `List ${kind.meta.titles.list}`,
      description: `An empty value is no value. Refused (400), naming what to use: another params[...] than the date range's, and a field of ${kind.meta.titles.list} that is not one of its filters.`,
      querystring: { type: 'object', properties: listQueryOf(kind), additionalProperties: true },
      response: { 200: listEnvelope(record), ...errorResponses },
    },
    get: { summary: `Get one ${title} (ETag: its version)`, params: idParam, response: { 200: recordEnvelopeOf(record), ...errorResponses } },
    history: {
      summary: `Every stored version of one ${title}, oldest first`,
      params: idParam,
      response: { 200: envelope({ type: 'array', items: HISTORY_ENTRY }), ...errorResponses },
    },
    create: {
      summary: `Create one ${title} (send an Idempotency-Key to make a retried create safe)`,
      headers: { type: 'object', properties: { 'idempotency-key': IDEMPOTENCY_KEY } },
      body: { $ref: inputRef(kind) },
      response: { 200: recordEnvelopeOf(record), 409: refused('The Idempotency-Key was used before for another record'), ...errorResponses },
    },
    update: {
      summary: `Update one ${title} by the body's id, merged against the version it was based on`,
      body: { allOf: [{ $ref: inputRef(kind) }, updateBody] },
      headers: IF_MATCH_HEADER,
      response: { 200: recordEnvelopeOf(record), 409: conflictSchema(kind), ...errorResponses },
    },
    delete: {
      summary: `Delete ${kind.meta.titles.list} by id (1,2,3): all or none`,
      params: { type: 'object', properties: { id: IDS }, required: ['id'] },
      querystring: {
        type: 'object',
        properties: { version: recordVersion('With one id: the version you saw; a newer record is not deleted (409)') },
      },
      headers: IF_MATCH_HEADER,
      response: { 200: envelope('ErrorEnvelope#/properties/data'), 409: conflictSchema(kind), ...errorResponses },
    },
  };
  return Object.fromEntries(Object.entries(schemas).map(([route, schema]) => [route, { tags: [title], ...schema }])) as Record<keyof typeof schemas, object>;
}
