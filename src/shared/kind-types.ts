// The shapes our code reads from a kind's schema file (the meta-schema, meta-schema.ts, checks them).

export const CARD_FORMATS = ['datetime-minute', 'date', 'time', 'minutes', 'hours-minutes', 'km', 'km-1', 'clamp-2'] as const;
export type CardFormat = (typeof CARD_FORMATS)[number];
export const WIDGETS = ['text', 'textarea', 'date', 'datetime', 'yesNo', 'connectors'] as const;
export const KIND_TEXT_KEYS = ['listLoading', 'emptyTitle', 'emptyText', 'detailLoading', 'notFoundTitle', 'notFoundText', 'notFoundButton'] as const;
export const SESSION_TEXT_KEYS = ['title', 'startLabel', 'endLabel', 'startIcon', 'runningLabel', 'idleLabel', 'startedToast', 'endedToast'] as const;
/** The record values of a todolist job (docs/services, the worker protocol), by their names on the wire. */
export const ANALYSIS_CONTEXT_KEYS = [
  'issueTitle',
  'issueDescription',
  'issueCategory',
  'issueSeverity',
  'workingCondition',
  'weather',
  'faultMileage',
] as const;

/** The `x-kind` block of a schema file: how a record kind is listed, titled and served. */
export interface KindMeta {
  apiPath: string;
  route: string;
  titles: { list: string; detail: string; new: string };
  canCreateFromList: boolean;
  i18n?: Partial<Record<'zh', Record<string, unknown>>>;
  detailBack?: 'list' | 'previous';
  dateField: string;
  rangeParams: { begin: string; end: string };
  pageButtons: number | 'all';
  /** Fields a list may be sorted by (orderByColumn); the date field and id always may. */
  sortable?: string[];
  /** Fields a list may be filtered by, as plain query parameters: exact match or contains (text). */
  filters?: Record<string, 'exact' | 'contains'>;
  texts: Record<(typeof KIND_TEXT_KEYS)[number], string>;
  messages: Record<'listLoadFailed' | 'recordLoadFailed' | 'updateFailed' | 'updated', string> &
    Partial<Record<'refreshFailed' | 'refreshed' | 'createFailed' | 'created', string>>;
  card: {
    title: { field?: string; text?: string; format?: CardFormat; fallback?: string };
    lines: { field: string; label?: string; format?: CardFormat; fallback?: string; icon?: string; optional?: boolean; suffixField?: string }[];
  };
  dataPage?: DataPageMeta;
  packages?: PackageMeta[];
  attachments?: AttachmentsMeta;
  /** The kind's place on the Workspace: a shortcut to a new record and/or a timed session that fills one. */
  workspace?: {
    shortcut?: { label: string; icon: string; severity?: 'warning' | 'success' | 'info' | 'danger' | 'help'; order: number };
    session?: WorkspaceSessionMeta;
  };
  analysis?: AnalysisMeta;
  /** The fields a tester looks for first: at the top of a record's sheet, first in its forms. */
  keyFields?: string[];
  /** Groups of fields, in order, for forms and sheets; fields in none come last, under 'More'. A collapsed one starts folded. */
  sections?: { title: string; fields: string[]; collapsed?: boolean }[];
  /** Longitude and latitude pairs the forms fill from the phone's position; `label` names one when there are several. */
  locations?: LocationMeta[];
}

export type LocationMeta = { lon: string; lat: string; label?: string };

interface DataPageMeta {
  order: number;
  /** The name of the kind's count in /vtp/stats/day and /vtp/stats/total, such as 'drivingCount'. */
  count: string;
  /** Stats name -> numeric field summed over the day's records, such as {"drivingDistance": "travelDistance"}. */
  sums?: Record<string, string>;
  /** The tile's detail: a day stats value (of any kind), divided, rounded and given a unit. */
  tile: { label: string; icon: string; detail?: { stat: string; divideBy?: number; decimals: number; unit: string } };
  total: string;
}

/** One package route under /download (docs/services/records.md), such as 'download_IssueFiles'. */
export interface PackageMeta {
  route: string;
  /** Plural for file and sheet names (DEMO_V1_2026-11-21_Journeys.zip), singular for messages. */
  label: string;
  noun: string;
  range?: boolean;
}

interface AttachmentsMeta {
  /** Path segments where {field} is a record value and {field:yyyyMMdd} or {field:yyyyMMdd-HHmmss} a date-time field's date or stamp. */
  folder: string;
  /** A field told 'uploading' and then 'uploaded' (a hint for the back office) by a PUT of the record's id, the fields in `with` and this one. */
  filesStatus?: { field: string; with?: string[] };
}

/** x-kind.analysis: the fields the analysis flow reads and writes (docs/decisions/020, 041); its answers keep the contract's names. */
export interface AnalysisMeta {
  /** What a record is called in the flow's messages; the schema's title without it. */
  noun?: string;
  /** The record's own status, set to AI_PROCESS by a submit; the blurring's and the model's (READY, DOING, DONE or FAILED); its markdown report. */
  status: string;
  desensitizationStatus: string;
  analysisStatus: string;
  report: string;
  /** The values a worker gets with each job, for its prompt: the todolist's name -> the kind's field. A name left out is sent as null. */
  context?: Partial<Record<(typeof ANALYSIS_CONTEXT_KEYS)[number], string>>;
}

export type WorkspaceSessionMeta = Record<(typeof SESSION_TEXT_KEYS)[number], string> & {
  order: number;
  startSeverity?: 'success';
  /** Kinds whose running session refuses this one's start (Start Charging is refused while driving). */
  blockedBy?: string[];
  /** The new record's fields the session fills: the start's day, the start, the end and the minutes between. */
  fills: { date?: string; start?: string; end?: string; minutes?: string };
};

export interface KindProperty {
  title?: string;
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  default?: unknown;
  readOnly?: boolean;
  'x-ui'?: { widget?: (typeof WIDGETS)[number]; hidden?: boolean };
  'x-export'?: boolean;
  /** A new record's value that depends on when and by whom it is made: now, today at 00:00:00, or the signed-in user's name. */
  'x-default'?: 'now' | 'startOfToday' | 'user';
  /** Computed by the server: a difference of two number fields on every save, or the attachment folder once at creation. */
  'x-derived'?: { difference: [string, string] } | { attachmentFolder: true };
  /** Set only by a server flow (the video analysis of issues): read-only to people, and a body that changes it is refused. */
  'x-setBy'?: 'fileAnalyze';
  /** Earlier names of the property: values stored under them are read as this one's, and writes naming them land here. */
  'x-renamedFrom'?: string[];
  /** Which value a read shows when a record holds one under this name and one under an old name: 'new' (this name's) or 'old'; the other is kept. */
  'x-renamedWinner'?: 'new' | 'old';
  /** The label people see for each stored choice (enum value), one text or one per language; a retired value may keep its label here. */
  'x-labels'?: Record<string, string | { en?: string; zh?: string }>;
  'x-i18n'?: Partial<Record<'zh', { title?: string; labels?: Record<string, string> }>>;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  minLength?: number;
  [keyword: string]: unknown;
}

export interface KindSchema {
  $schema?: string;
  $id?: string;
  title: string;
  description?: string;
  type: 'object';
  'x-kind': KindMeta;
  properties: Record<string, KindProperty>;
  required?: string[];
  /** The kind's earlier names, newest first (a renamed file): its records stay stored under the last, the name it was first served under. */
  'x-renamedFrom'?: string[];
}

/** A record kind; its name, its identity in storage, is the file's stem or a renamed kind's oldest name, so its records follow it (decision 059). */
export interface Kind {
  name: string;
  file: string;
  schema: KindSchema;
  meta: KindMeta;
  fields: string[];
  readOnlyFields: Set<string>;
  exportFields: string[];
  renamed: ReadonlyMap<string, string>;
  /** A short hash of the schema file as served: records remember the one they were saved under. */
  hash: string;
}

export type KindRegistry = ReadonlyMap<string, Kind>;
