/** The `x-kind` block of a schema file: how a record kind is listed, titled and served. */
export interface KindMeta {
  apiPath: string;
  route: string;
  titles: { list: string; detail: string; new: string };
  canCreateFromList: boolean;
  detailBack?: 'list' | 'previous';
  dateField: string;
  rangeParams: { begin: string; end: string };
  pageButtons: number | 'all';
  /** Fields a list may be sorted by (orderByColumn); the date field and id always may. */
  sortable?: string[];
  /** Fields a list may be filtered by, as plain query parameters: exact match or contains (text). */
  filters?: Record<string, 'exact' | 'contains'>;
  texts: KindTexts;
  messages: KindMessages;
  card: CardLayout;
}

export interface KindTexts {
  listLoading: string;
  emptyTitle: string;
  emptyText: string;
  detailLoading: string;
  notFoundTitle: string;
  notFoundText: string;
  notFoundButton: string;
}

export interface KindMessages {
  listLoadFailed: string;
  recordLoadFailed: string;
  refreshFailed?: string;
  refreshed?: string;
  createFailed?: string;
  created?: string;
  updateFailed: string;
  updated: string;
}

export type CardFormat =
  | 'datetime-minute'
  | 'date'
  | 'time'
  | 'minutes'
  | 'hours-minutes'
  | 'km'
  | 'km-1'
  | 'clamp-2';

export interface CardTitle {
  field?: string;
  text?: string;
  format?: CardFormat;
  fallback?: string;
}

export interface CardLine {
  field: string;
  label?: string;
  format?: CardFormat;
  fallback?: string;
  icon?: string;
  optional?: boolean;
  suffixField?: string;
}

export interface CardLayout {
  title: CardTitle;
  lines: CardLine[];
}

/** The `x-ui` block of a property. */
export interface PropertyUi {
  widget?: 'text' | 'textarea' | 'date' | 'datetime' | 'yesNo' | 'connectors';
  hidden?: boolean;
}

/** One property of a kind's schema, as far as our code reads it. */
export interface KindProperty {
  title?: string;
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  default?: unknown;
  readOnly?: boolean;
  'x-ui'?: PropertyUi;
  'x-export'?: boolean;
  'x-default'?: 'now' | 'startOfToday';
  /** Computed by the server: a difference of two number fields on every save, or the attachment folder once at creation. */
  'x-derived'?: { difference: [string, string] } | { attachmentFolder: true };
  /** Set only by a server flow (the video analysis of issues): read-only to people, and a body that changes it is refused. */
  'x-setBy'?: 'fileAnalyze';
  [keyword: string]: unknown;
}

/** A kind's schema file as parsed JSON. */
export interface KindSchema {
  $schema?: string;
  $id?: string;
  title: string;
  description?: string;
  type: 'object';
  'x-kind': KindMeta;
  properties: Record<string, KindProperty>;
  required?: string[];
}

/** A record kind: its name (the schema file's stem), schema and derived facts. */
export interface Kind {
  name: string;
  schema: KindSchema;
  meta: KindMeta;
  /** Property names in schema order. */
  fields: string[];
  /** Fields a client can never write: readOnly ones (id, projectName, vehicleNo, derived). */
  readOnlyFields: Set<string>;
  /** Columns of Excel sheets and data packages, in schema order. */
  exportFields: string[];
}

export type KindRegistry = ReadonlyMap<string, Kind>;
