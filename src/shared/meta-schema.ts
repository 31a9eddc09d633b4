import { customFormats } from './formats.js';

// The meta-schema of a kind's schema file: the keywords our code reads, where, and of what shape.
// meta-check.ts compiles it and adds the checks a schema cannot say (names that must exist, one
// name per place, the analysis flow's statuses). `npm run gen:types` makes kind-types.ts's types from it.

/** The languages a schema may translate its English texts into (x-i18n, x-kind.i18n). */
const OTHER_LANGUAGES = ['zh'];
export const ROOT_X_KEYWORDS = ['x-kind', 'x-renamedFrom'] as const;
/** The statuses the analysis flow sets (docs/decisions/020): a status field's enum must offer them all. */
export const ANALYSIS_STATUSES = ['READY', 'DOING', 'DONE', 'FAILED'] as const;
/** The record status a submit sets. */
export const ANALYSIS_SUBMITTED = 'AI_PROCESS';
/** The record values of a todolist job (docs/services, the worker protocol), by their names on the wire; one a kind leaves out is sent as null. */
export const ANALYSIS_CONTEXT_KEYS = [
  'issueTitle',
  'issueDescription',
  'issueCategory',
  'issueSeverity',
  'workingCondition',
  'weather',
  'faultMileage',
] as const;
const KIND_TEXT_KEYS = ['listLoading', 'emptyTitle', 'emptyText', 'detailLoading', 'notFoundTitle', 'notFoundText', 'notFoundButton'];
const SESSION_TEXT_KEYS = ['title', 'startLabel', 'endLabel', 'startIcon', 'runningLabel', 'idleLabel', 'startedToast', 'endedToast'];

/** An object with exactly these properties. */
const closed = (properties: Record<string, unknown>, required: readonly string[] = [], more: Record<string, unknown> = {}) => ({
  type: 'object',
  additionalProperties: false,
  ...(required.length > 0 ? { required } : {}),
  properties,
  ...more,
});
const each = (keys: readonly string[], schema: unknown) => Object.fromEntries(keys.map((k) => [k, schema]));
const nonEmpty = { type: 'string', minLength: 1 };
const text = { type: 'string' };
const bool = { type: 'boolean' };
const integer = { type: 'integer' };
const list = (items: unknown, minItems?: number) => ({ type: 'array', ...(minItems === undefined ? {} : { minItems }), items, uniqueItems: true });
const names = list(nonEmpty);
const name = { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_]*$' };
/** A text people read: one for every language, or English and other languages apart. */
const perLanguage = { anyOf: [nonEmpty, closed({ en: nonEmpty, zh: nonEmpty }, ['en'])] };
/** A choice's label: as perLanguage, but English may be left out where it is the stored value itself. */
const choiceLabel = { anyOf: [nonEmpty, closed({ en: nonEmpty, zh: nonEmpty }, [], { minProperties: 1 })] };
const statName = { type: 'string', pattern: '^[a-z][A-Za-z0-9]*$' };
const cardFormat = { enum: ['datetime-minute', 'date', 'time', 'minutes', 'hours-minutes', 'km', 'km-1', 'clamp-2'] };

const tileDetail = closed(
  { stat: statName, divideBy: { type: 'number', exclusiveMinimum: 0 }, decimals: { type: 'integer', minimum: 0, maximum: 6 }, unit: text },
  ['stat', 'decimals', 'unit'],
);
const dataPageSchema = closed(
  {
    order: integer,
    // The kind's count in /vtp/stats/day and /vtp/stats/total ('drivingCount'); sums: stats name -> number field summed over the day's records.
    count: statName,
    sums: { type: 'object', propertyNames: statName, additionalProperties: nonEmpty },
    tile: closed({ label: nonEmpty, icon: nonEmpty, detail: tileDetail }, ['label', 'icon']),
    total: nonEmpty,
  },
  ['order', 'count', 'tile', 'total'],
);

const sessionSchema = closed(
  {
    order: integer,
    ...each(SESSION_TEXT_KEYS, nonEmpty),
    startSeverity: { const: 'success' },
    // Kinds whose running session refuses this one's start (Start Charging is refused while driving).
    blockedBy: names,
    fills: closed(each(['date', 'start', 'end', 'minutes'], nonEmpty), [], { minProperties: 1 }),
  },
  ['order', ...SESSION_TEXT_KEYS, 'fills'],
);
const severity = { enum: ['warning', 'success', 'info', 'danger', 'help'] };
const workspaceSchema = closed({
  shortcut: closed({ label: nonEmpty, icon: nonEmpty, severity, order: integer }, ['label', 'icon', 'order']),
  session: sessionSchema,
});

/** x-kind.analysis (docs/decisions/041): the fields the AI analysis flow reads and writes. */
const analysisSchema = closed(
  {
    ...each(['noun', 'status', 'desensitizationStatus', 'analysisStatus', 'report'], nonEmpty),
    context: closed(each(ANALYSIS_CONTEXT_KEYS, nonEmpty), [], { minProperties: 1 }),
  },
  ['status', 'desensitizationStatus', 'analysisStatus', 'report'],
);

const MESSAGES = ['listLoadFailed', 'recordLoadFailed', 'refreshFailed', 'refreshed', 'createFailed', 'created', 'updateFailed', 'updated'];
const cardTitle = closed({ field: nonEmpty, text: nonEmpty, format: cardFormat, fallback: text }, [], {
  anyOf: [{ required: ['field'] }, { required: ['text'] }],
});
const cardLine = closed({ field: nonEmpty, label: text, format: cardFormat, fallback: text, icon: text, optional: bool, suffixField: nonEmpty }, ['field']);
// filesStatus.field is told 'uploading' and then 'uploaded' (a hint for the back office) by a PUT of the record's id, the fields in `with` and it.
const attachmentsSchema = closed({ folder: nonEmpty, filesStatus: closed({ field: nonEmpty, with: names }, ['field']) }, ['folder']);
const section = closed({ title: nonEmpty, fields: list(nonEmpty, 1), collapsed: bool }, ['title', 'fields']);

const xKindSchema = closed(
  {
    apiPath: { type: 'string', pattern: '^(/[A-Za-z][A-Za-z0-9_-]*)+$' },
    // The app serves record screens at /data/<slug> (list) and /data/<slug>/<id> (detail).
    route: { type: 'string', pattern: '^/data/[a-z][a-z0-9_-]*$' },
    titles: closed(each(['list', 'detail', 'new'], nonEmpty), ['list', 'detail', 'new']),
    canCreateFromList: bool,
    // x-kind's texts in another language, at the same paths (checked by i18nProblems).
    i18n: { type: 'object', minProperties: 1, propertyNames: { enum: OTHER_LANGUAGES }, additionalProperties: { type: 'object' } },
    detailBack: { enum: ['list', 'previous'] },
    dateField: nonEmpty,
    rangeParams: closed({ begin: { type: 'string', pattern: '^begin[A-Z]\\w*$' }, end: { type: 'string', pattern: '^end[A-Z]\\w*$' } }, ['begin', 'end']),
    pageButtons: { anyOf: [{ type: 'integer', minimum: 1, maximum: 20 }, { const: 'all' }] },
    // A list may also be sorted by the date field and id; filters are plain query parameters.
    sortable: names,
    filters: { type: 'object', additionalProperties: { enum: ['exact', 'contains'] } },
    texts: closed(each(KIND_TEXT_KEYS, text), KIND_TEXT_KEYS),
    messages: closed(each(MESSAGES, nonEmpty), ['listLoadFailed', 'recordLoadFailed', 'updateFailed', 'updated']),
    card: closed({ title: cardTitle, lines: { type: 'array', minItems: 1, items: cardLine } }, ['title', 'lines']),
    dataPage: dataPageSchema,
    // Routes under /download (docs/services/records.md); label is the plural for file and sheet names, noun the singular for messages.
    packages: {
      type: 'array',
      minItems: 1,
      items: closed({ route: name, label: nonEmpty, noun: nonEmpty, range: bool }, ['route', 'label', 'noun']),
    },
    attachments: attachmentsSchema,
    workspace: workspaceSchema,
    analysis: analysisSchema,
    // The fields a tester looks for first: at the top of a record's sheet, first in its forms. Fields in no section come last, under 'More'.
    keyFields: list(nonEmpty, 1),
    locations: { type: 'array', minItems: 1, items: closed({ lon: nonEmpty, lat: nonEmpty, label: nonEmpty }, ['lon', 'lat']) },
    sections: { type: 'array', minItems: 1, items: section },
  },
  ['apiPath', 'route', 'titles', 'canCreateFromList', 'dateField', 'rangeParams', 'pageButtons', 'texts', 'messages', 'card'],
);

const choices = { type: 'array', minItems: 1, uniqueItems: true };
/** A property's keywords, standard and ours (x-), in the order messages list them. */
const propertyKeywords = {
  title: nonEmpty,
  description: text,
  type: { enum: ['string', 'number', 'integer', 'boolean', 'array'] },
  enum: choices,
  format: { enum: Object.keys(customFormats) },
  default: {},
  readOnly: bool,
  minimum: { type: 'number' },
  maximum: { type: 'number' },
  minLength: { type: 'integer', minimum: 0 },
  maxLength: { type: 'integer', minimum: 0 },
  pattern: text,
  // A list of choices (multi-select, docs/decisions/061); field-vocabulary.ts checks the rest.
  items: closed({ type: { enum: ['string', 'number', 'integer'] }, enum: choices }),
  uniqueItems: bool,
  'x-ui': closed({ widget: { enum: ['text', 'textarea', 'date', 'datetime', 'yesNo', 'connectors'] }, hidden: bool }),
  'x-export': bool,
  'x-default': { enum: ['now', 'startOfToday', 'user'] },
  // Computed by the server: a difference of two number fields on every save, or the attachment folder once at creation.
  'x-derived': {
    oneOf: [
      closed({ difference: { type: 'array', items: nonEmpty, minItems: 2, maxItems: 2 } }, ['difference']),
      closed({ attachmentFolder: { const: true } }, ['attachmentFolder']),
    ],
  },
  // Set only by a server flow (the video analysis of issues): read-only to people, and a body that changes it is refused.
  'x-setBy': { enum: ['fileAnalyze'] },
  // Earlier names: stored values under them are read, filtered, sorted and exported under this name,
  // and a write naming one lands here (docs/decisions/034).
  'x-renamedFrom': { ...list(name), minItems: 1 },
  // Which value a read shows when a record holds one under the name and one under an old name;
  // the other is kept in the record and named in its warnings (docs/decisions/054).
  'x-renamedWinner': { enum: ['new', 'old'] },
  // What people see for each stored choice: relabel here, never in enum (the stored value); decision 078.
  'x-labels': { type: 'object', minProperties: 1, additionalProperties: choiceLabel },
  // The title (and choice labels) in another language than the schema's English (decision 038).
  'x-i18n': {
    type: 'object',
    minProperties: 1,
    propertyNames: { enum: OTHER_LANGUAGES },
    additionalProperties: closed({ title: nonEmpty, labels: { type: 'object', minProperties: 1, additionalProperties: nonEmpty } }, [], { minProperties: 1 }),
  },
  'x-patternMessage': perLanguage,
};
const keywords = Object.keys(propertyKeywords);
/** Property-level x- keywords our code understands. Anything else starting with x- is a typo. */
export const PROPERTY_X_KEYWORDS = keywords.filter((k) => k.startsWith('x-'));
/** Standard keywords a property may use; anything else is refused, so a typo ('maxlength') is neither a stack trace nor silently ignored. */
export const PROPERTY_STANDARD_KEYWORDS = keywords.filter((k) => !k.startsWith('x-'));

/** A kind's schema file as our code reads it: draft-07 with our x- keywords (meta-check.ts compiles it). */
export const rootSchema = closed(
  {
    $schema: { const: 'http://json-schema.org/draft-07/schema#' },
    $id: text,
    title: nonEmpty,
    description: text,
    type: { const: 'object' },
    required: { type: 'array', items: text },
    'x-kind': xKindSchema,
    // The kind's earlier names, newest first: its records stay stored under the last (decision 059).
    'x-renamedFrom': { ...list({ type: 'string', pattern: '^[a-z][a-z0-9]*$' }), minItems: 1 },
    properties: {
      type: 'object',
      propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9_]*$' },
      additionalProperties: { type: 'object', required: ['title', 'type'], properties: propertyKeywords },
    },
  },
  ['title', 'type', 'x-kind', 'properties'],
);
