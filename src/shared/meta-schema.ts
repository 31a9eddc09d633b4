import { customFormats } from './formats.js';
import { ANALYSIS_CONTEXT_KEYS } from './kind-types.js';

// The meta-schema of a kind's schema file: the keywords our code reads, where, and of what shape.
// meta-check.ts compiles it and adds the checks a schema cannot say (names that must exist, one
// name per place, the analysis flow's statuses).

/** The languages a schema may translate its English texts into (x-i18n, x-kind.i18n). */
export const OTHER_LANGUAGES = ['zh'] as const;
/** Property-level x- keywords our code understands. Anything else starting with x- is a typo. */
export const PROPERTY_X_KEYWORDS = [
  'x-ui',
  'x-export',
  'x-default',
  'x-derived',
  'x-setBy',
  'x-renamedFrom',
  'x-renamedWinner',
  'x-labels',
  'x-i18n',
  'x-patternMessage',
] as const;
/**
 * Standard JSON Schema keywords a property may use: the ones the server's validation, the app, the
 * API documentation and the checks of stored data (schema-evolution.ts valueProblem) all read.
 * Anything else on a property is refused, so that a typo ('maxlength') never reaches the server's
 * strict validator as a stack trace, and is never silently ignored by the app.
 */
export const PROPERTY_STANDARD_KEYWORDS = [
  'title',
  'description',
  'type',
  'enum',
  'format',
  'default',
  'readOnly',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'items',
  'uniqueItems',
] as const;
/** Root-level x- keywords. */
export const ROOT_X_KEYWORDS = ['x-kind', 'x-renamedFrom'] as const;
/** Fields every kind must have, read-only, because the server scopes and identifies by them. */
export const REQUIRED_READONLY_FIELDS = ['id', 'projectName', 'vehicleNo'] as const;

const CARD_FORMATS = ['datetime-minute', 'date', 'time', 'minutes', 'hours-minutes', 'km', 'km-1', 'clamp-2'];
const STANDARD_FORMATS: string[] = [];
const nonEmpty = { type: 'string', minLength: 1 };
/** A text people read: one for every language, or English and other languages apart. */
const perLanguage = { anyOf: [nonEmpty, { type: 'object', additionalProperties: false, required: ['en'], properties: { en: nonEmpty, zh: nonEmpty } }] };
/** A choice's label: as perLanguage, but English may be left out where it is the stored value itself. */
const choiceLabel = { anyOf: [nonEmpty, { type: 'object', additionalProperties: false, minProperties: 1, properties: { en: nonEmpty, zh: nonEmpty } }] };

const cardLine = {
  type: 'object',
  additionalProperties: false,
  required: ['field'],
  properties: {
    field: nonEmpty,
    label: { type: 'string' },
    format: { enum: CARD_FORMATS },
    fallback: { type: 'string' },
    icon: { type: 'string' },
    optional: { type: 'boolean' },
    suffixField: nonEmpty,
  },
};

const statName = { type: 'string', pattern: '^[a-z][A-Za-z0-9]*$' };
const severity = { enum: ['warning', 'success', 'info', 'danger', 'help'] };

const dataPageSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['order', 'count', 'tile', 'total'],
  properties: {
    order: { type: 'integer' },
    count: statName,
    sums: { type: 'object', propertyNames: statName, additionalProperties: nonEmpty },
    tile: {
      type: 'object',
      additionalProperties: false,
      required: ['label', 'icon'],
      properties: {
        label: nonEmpty,
        icon: nonEmpty,
        detail: {
          type: 'object',
          additionalProperties: false,
          required: ['stat', 'decimals', 'unit'],
          properties: {
            stat: statName,
            divideBy: { type: 'number', exclusiveMinimum: 0 },
            decimals: { type: 'integer', minimum: 0, maximum: 6 },
            unit: { type: 'string' },
          },
        },
      },
    },
    total: nonEmpty,
  },
};

const packageSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['route', 'label', 'noun'],
  properties: { route: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_]*$' }, label: nonEmpty, noun: nonEmpty, range: { type: 'boolean' } },
};

const workspaceSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    shortcut: {
      type: 'object',
      additionalProperties: false,
      required: ['label', 'icon', 'order'],
      properties: { label: nonEmpty, icon: nonEmpty, severity, order: { type: 'integer' } },
    },
    session: {
      type: 'object',
      additionalProperties: false,
      required: ['order', 'title', 'startLabel', 'endLabel', 'startIcon', 'runningLabel', 'idleLabel', 'startedToast', 'endedToast', 'fills'],
      properties: {
        order: { type: 'integer' },
        ...Object.fromEntries(
          ['title', 'startLabel', 'endLabel', 'startIcon', 'runningLabel', 'idleLabel', 'startedToast', 'endedToast'].map((k) => [k, nonEmpty]),
        ),
        startSeverity: { const: 'success' },
        blockedBy: { type: 'array', items: nonEmpty, uniqueItems: true },
        fills: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: { date: nonEmpty, start: nonEmpty, end: nonEmpty, minutes: nonEmpty },
        },
      },
    },
  },
};

/** x-kind.analysis (docs/decisions/041): the fields the AI analysis flow reads and writes. */
const analysisSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'desensitizationStatus', 'analysisStatus', 'report'],
  properties: {
    noun: nonEmpty,
    status: nonEmpty,
    desensitizationStatus: nonEmpty,
    analysisStatus: nonEmpty,
    report: nonEmpty,
    context: { type: 'object', additionalProperties: false, minProperties: 1, properties: Object.fromEntries(ANALYSIS_CONTEXT_KEYS.map((k) => [k, nonEmpty])) },
  },
};

/** The statuses the analysis flow sets (docs/decisions/020): a status field's enum must offer them all. */
export const ANALYSIS_STATUSES = ['READY', 'DOING', 'DONE', 'FAILED'] as const;
/** The record status a submit sets. */
export const ANALYSIS_SUBMITTED = 'AI_PROCESS';

const xKindSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['apiPath', 'route', 'titles', 'canCreateFromList', 'dateField', 'rangeParams', 'pageButtons', 'texts', 'messages', 'card'],
  properties: {
    apiPath: { type: 'string', pattern: '^(/[A-Za-z][A-Za-z0-9_-]*)+$' },
    // The app serves record screens at /data/<slug> (list) and /data/<slug>/<id> (detail).
    route: { type: 'string', pattern: '^/data/[a-z][a-z0-9_-]*$' },
    titles: {
      type: 'object',
      additionalProperties: false,
      required: ['list', 'detail', 'new'],
      properties: { list: nonEmpty, detail: nonEmpty, new: nonEmpty },
    },
    canCreateFromList: { type: 'boolean' },
    // x-kind's texts in another language, at the same paths (checked by i18nProblems).
    i18n: { type: 'object', minProperties: 1, propertyNames: { enum: [...OTHER_LANGUAGES] }, additionalProperties: { type: 'object' } },
    detailBack: { enum: ['list', 'previous'] },
    dateField: nonEmpty,
    rangeParams: {
      type: 'object',
      additionalProperties: false,
      required: ['begin', 'end'],
      properties: { begin: { type: 'string', pattern: '^begin[A-Z]\\w*$' }, end: { type: 'string', pattern: '^end[A-Z]\\w*$' } },
    },
    pageButtons: { anyOf: [{ type: 'integer', minimum: 1, maximum: 20 }, { const: 'all' }] },
    sortable: { type: 'array', items: nonEmpty, uniqueItems: true },
    filters: { type: 'object', additionalProperties: { enum: ['exact', 'contains'] } },
    texts: {
      type: 'object',
      additionalProperties: false,
      required: ['listLoading', 'emptyTitle', 'emptyText', 'detailLoading', 'notFoundTitle', 'notFoundText', 'notFoundButton'],
      properties: Object.fromEntries(
        ['listLoading', 'emptyTitle', 'emptyText', 'detailLoading', 'notFoundTitle', 'notFoundText', 'notFoundButton'].map((k) => [k, { type: 'string' }]),
      ),
    },
    messages: {
      type: 'object',
      additionalProperties: false,
      required: ['listLoadFailed', 'recordLoadFailed', 'updateFailed', 'updated'],
      properties: Object.fromEntries(
        ['listLoadFailed', 'recordLoadFailed', 'refreshFailed', 'refreshed', 'createFailed', 'created', 'updateFailed', 'updated'].map((k) => [k, nonEmpty]),
      ),
    },
    card: {
      type: 'object',
      additionalProperties: false,
      required: ['title', 'lines'],
      properties: {
        title: {
          type: 'object',
          additionalProperties: false,
          properties: { field: nonEmpty, text: nonEmpty, format: { enum: CARD_FORMATS }, fallback: { type: 'string' } },
          anyOf: [{ required: ['field'] }, { required: ['text'] }],
        },
        lines: { type: 'array', minItems: 1, items: cardLine },
      },
    },
    dataPage: dataPageSchema,
    packages: { type: 'array', minItems: 1, items: packageSchema },
    attachments: {
      type: 'object',
      additionalProperties: false,
      required: ['folder'],
      properties: {
        folder: nonEmpty,
        filesStatus: {
          type: 'object',
          additionalProperties: false,
          required: ['field'],
          properties: { field: nonEmpty, with: { type: 'array', items: nonEmpty, uniqueItems: true } },
        },
      },
    },
    workspace: workspaceSchema,
    analysis: analysisSchema,
    keyFields: { type: 'array', minItems: 1, items: nonEmpty, uniqueItems: true },
    locations: {
      type: 'array',
      minItems: 1,
      items: { type: 'object', additionalProperties: false, required: ['lon', 'lat'], properties: { lon: nonEmpty, lat: nonEmpty, label: nonEmpty } },
    },
    sections: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['title', 'fields'],
        properties: { title: nonEmpty, fields: { type: 'array', minItems: 1, items: nonEmpty, uniqueItems: true }, collapsed: { type: 'boolean' } },
      },
    },
  },
};

const xUiSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    widget: { enum: ['text', 'textarea', 'date', 'datetime', 'yesNo', 'connectors'] },
    hidden: { type: 'boolean' },
  },
};

const propertySchema = {
  type: 'object',
  required: ['title', 'type'],
  properties: {
    title: nonEmpty,
    description: { type: 'string' },
    type: { enum: ['string', 'number', 'integer', 'boolean', 'array'] },
    enum: { type: 'array', minItems: 1, uniqueItems: true },
    pattern: { type: 'string' },
    // A list of choices (multi-select, docs/decisions/061); field-vocabulary.ts checks the rest.
    items: {
      type: 'object',
      additionalProperties: false,
      properties: { type: { enum: ['string', 'number', 'integer'] }, enum: { type: 'array', minItems: 1, uniqueItems: true } },
    },
    uniqueItems: { type: 'boolean' },
    'x-patternMessage': perLanguage,
    format: { enum: [...Object.keys(customFormats), ...STANDARD_FORMATS] },
    readOnly: { type: 'boolean' },
    minimum: { type: 'number' },
    maximum: { type: 'number' },
    minLength: { type: 'integer', minimum: 0 },
    maxLength: { type: 'integer', minimum: 0 },
    'x-ui': xUiSchema,
    'x-export': { type: 'boolean' },
    'x-default': { enum: ['now', 'startOfToday', 'user'] },
    'x-setBy': { enum: ['fileAnalyze'] },
    // Earlier names of the property: stored values under them are read, filtered, sorted and
    // exported under this name, and a write naming one lands here (docs/decisions/034).
    'x-renamedFrom': { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_]*$' } },
    // Which value a read shows when a record holds one under the name and one under an old name;
    // the other is kept in the record and named in its warnings (docs/decisions/054).
    'x-renamedWinner': { enum: ['new', 'old'] },
    // What people see for each stored choice: relabel here, never in enum (the stored value).
    // One text for every language, or one per language ({"zh": "隧道"}, {"en": "A: safety", "zh": "A：安全"}; decision 078).
    'x-labels': { type: 'object', minProperties: 1, additionalProperties: choiceLabel },
    // The title (and choice labels) in another language than the schema's English (decision 038).
    'x-i18n': {
      type: 'object',
      minProperties: 1,
      propertyNames: { enum: [...OTHER_LANGUAGES] },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: { title: nonEmpty, labels: { type: 'object', minProperties: 1, additionalProperties: nonEmpty } },
      },
    },
    'x-derived': {
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['difference'],
          properties: { difference: { type: 'array', items: nonEmpty, minItems: 2, maxItems: 2 } },
        },
        { type: 'object', additionalProperties: false, required: ['attachmentFolder'], properties: { attachmentFolder: { const: true } } },
      ],
    },
  },
};

/** A kind's schema file as our code reads it: draft-07 with our x- keywords (meta-check.ts compiles it). */
export const rootSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'type', 'x-kind', 'properties'],
  properties: {
    $schema: { const: 'http://json-schema.org/draft-07/schema#' },
    $id: { type: 'string' },
    title: nonEmpty,
    description: { type: 'string' },
    type: { const: 'object' },
    required: { type: 'array', items: { type: 'string' } },
    'x-kind': xKindSchema,
    'x-renamedFrom': { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', pattern: '^[a-z][a-z0-9]*$' } },
    properties: {
      type: 'object',
      propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9_]*$' },
      additionalProperties: propertySchema,
    },
  },
};
