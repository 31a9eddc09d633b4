/* GENERATED - do not edit. Made from src/shared/meta-schema.ts by `npm run gen:types`. */

export interface KindSchema {
  $schema?: 'http://json-schema.org/draft-07/schema#';
  $id?: string;
  title: string;
  description?: string;
  type: 'object';
  required?: string[];
  'x-kind': {
    apiPath: string;
    route: string;
    titles: {
      list: string;
      detail: string;
      new: string;
    };
    canCreateFromList: boolean;
    i18n?: {
      [k: string]: {
        [k: string]: unknown;
      };
    };
    detailBack?: 'list' | 'previous';
    dateField: string;
    rangeParams: {
      begin: string;
      end: string;
    };
    pageButtons: number | 'all';
    sortable?: string[];
    filters?: {
      [k: string]: 'exact' | 'contains';
    };
    texts: {
      listLoading: string;
      emptyTitle: string;
      emptyText: string;
      detailLoading: string;
      notFoundTitle: string;
      notFoundText: string;
      notFoundButton: string;
    };
    messages: {
      listLoadFailed: string;
      recordLoadFailed: string;
      refreshFailed?: string;
      refreshed?: string;
      createFailed?: string;
      created?: string;
      updateFailed: string;
      updated: string;
    };
    card: {
      title: {
        [k: string]: unknown;
      } & {
        field?: string;
        text?: string;
        format?: 'datetime-minute' | 'date' | 'time' | 'minutes' | 'hours-minutes' | 'km' | 'km-1' | 'clamp-2';
        fallback?: string;
      };
      /**
       * @minItems 1
       */
      lines: {
        field: string;
        label?: string;
        format?: 'datetime-minute' | 'date' | 'time' | 'minutes' | 'hours-minutes' | 'km' | 'km-1' | 'clamp-2';
        fallback?: string;
        icon?: string;
        optional?: boolean;
        suffixField?: string;
      }[];
    };
    dataPage?: {
      order: number;
      count: string;
      sums?: {
        [k: string]: string;
      };
      tile: {
        label: string;
        icon: string;
        detail?: {
          stat: string;
          divideBy?: number;
          decimals: number;
          unit: string;
        };
      };
      total: string;
    };
    /**
     * @minItems 1
     */
    packages?: {
      route: string;
      label: string;
      noun: string;
      range?: boolean;
    }[];
    attachments?: {
      folder: string;
      filesStatus?: {
        field: string;
        with?: string[];
      };
    };
    workspace?: {
      shortcut?: {
        label: string;
        icon: string;
        severity?: 'warning' | 'success' | 'info' | 'danger' | 'help';
        order: number;
      };
      session?: {
        order: number;
        title: string;
        startLabel: string;
        endLabel: string;
        startIcon: string;
        runningLabel: string;
        idleLabel: string;
        startedToast: string;
        endedToast: string;
        startSeverity?: 'success';
        blockedBy?: string[];
        fills: {
          date?: string;
          start?: string;
          end?: string;
          minutes?: string;
        };
      };
    };
    analysis?: {
      noun?: string;
      status: string;
      desensitizationStatus: string;
      analysisStatus: string;
      report: string;
      context?: {
        issueTitle?: string;
        issueDescription?: string;
        issueCategory?: string;
        issueSeverity?: string;
        workingCondition?: string;
        weather?: string;
        faultMileage?: string;
      };
    };
    /**
     * @minItems 1
     */
    keyFields?: string[];
    /**
     * @minItems 1
     */
    locations?: {
      lon: string;
      lat: string;
      label?: string;
    }[];
    /**
     * @minItems 1
     */
    sections?: {
      title: string;
      /**
       * @minItems 1
       */
      fields: string[];
      collapsed?: boolean;
    }[];
  };
  /**
   * @minItems 1
   */
  'x-renamedFrom'?: string[];
  properties: {
    [k: string]: {
      title: string;
      description?: string;
      type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
      /**
       * @minItems 1
       */
      enum?: unknown[];
      format?: 'datetime-text' | 'date-text';
      default?: unknown;
      readOnly?: boolean;
      minimum?: number;
      maximum?: number;
      minLength?: number;
      maxLength?: number;
      pattern?: string;
      items?: {
        type?: 'string' | 'number' | 'integer';
        /**
         * @minItems 1
         */
        enum?: unknown[];
      };
      uniqueItems?: boolean;
      'x-ui'?: {
        widget?: 'text' | 'textarea' | 'date' | 'datetime' | 'yesNo' | 'connectors';
        hidden?: boolean;
      };
      'x-export'?: boolean;
      'x-default'?: 'now' | 'startOfToday' | 'user';
      'x-derived'?:
        | {
            /**
             * @minItems 2
             * @maxItems 2
             */
            difference: string[];
          }
        | {
            attachmentFolder: true;
          };
      'x-setBy'?: 'fileAnalyze';
      /**
       * @minItems 1
       */
      'x-renamedFrom'?: string[];
      'x-renamedWinner'?: 'new' | 'old';
      'x-labels'?: {
        [k: string]:
          | string
          | {
              en?: string;
              zh?: string;
            };
      };
      'x-i18n'?: {
        [k: string]: {
          title?: string;
          labels?: {
            [k: string]: string;
          };
        };
      };
      'x-patternMessage'?:
        | string
        | {
            en: string;
            zh?: string;
          };
      [k: string]: unknown;
    };
  };
}
