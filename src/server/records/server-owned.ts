import type { Kind } from '../../shared/kind-types.js';
import { badRequest } from '../http/envelope.js';
import type { RecordData } from './validation.js';

/** Values that mean "nothing sent" for a server-owned field: a form sends its empty text or null. */
const isEmpty = (value: unknown): boolean => value === undefined || value === null || value === '';

/**
 * Refuses (400, naming the field) a create or update whose body would change a field that only a
 * server flow sets (x-setBy): the issue's video statuses and AI report. Sending the value the record
 * already has is fine (a form sends back what it loaded), and so is the schema default on a new
 * record or on one that has no value yet (a form fills defaults in). Nothing sent is fine too.
 */
export function refuseServerOwned(kind: Kind, body: unknown, stored: RecordData | undefined): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const sent = body as RecordData;
  for (const field of kind.fields) {
    const prop = kind.schema.properties[field];
    if (prop?.['x-setBy'] === undefined || !Object.prototype.hasOwnProperty.call(sent, field)) continue;
    const value = sent[field];
    if (isEmpty(value)) continue;
    const current = stored?.[field];
    if (current !== undefined && value === current) continue;
    if (current === undefined && prop.default !== undefined && value === prop.default) continue;
    const title = prop.title ?? field;
    throw badRequest(
      `${field} (${title}) is set only by the video analysis (submit to AI and its workers); it cannot be changed by hand. ` +
        `Leave it out of the body${current !== undefined ? ` or send its current value ${JSON.stringify(current)}` : ''}.`,
    );
  }
}
