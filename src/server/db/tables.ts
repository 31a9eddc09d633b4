import type { Kind } from '../../shared/kind-types.js';
import type { RecordTableName } from './types.js';

/** The table that holds records of a kind. Kind names are checked to be [a-z][a-z0-9]*. */
export function recordTable(kind: Pick<Kind, 'name'>): RecordTableName {
  return `rec_${kind.name}`;
}
