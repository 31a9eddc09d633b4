import { refused } from '../http/envelope.js';

type Responses = Record<string, unknown>;

const WITHOUT_BODY = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The refusals every route of a sort can give whatever its own code does, added where its schema
 * does not list them, in the shape of its own refusals: 400 (input guard) everywhere, 401 and 403
 * where it needs a sign-in, 413 on any method with a body (DELETE included), 415 where it takes JSON.
 */
export function withCommonResponses(schema: Record<string, unknown>, method: string): Record<string, unknown> {
  const responses = (schema['response'] ?? {}) as Responses;
  const refusal = Object.entries(responses).find(([status]) => Number(status) >= 400)?.[1] as Record<string, unknown> | undefined;
  const shape = refusal === undefined ? refused() : Object.fromEntries(Object.entries(refusal).filter(([k]) => k !== 'description'));
  const added: Responses = {};
  const add = (status: number, description: string): void => {
    if (responses[status] === undefined && responses[String(status)] === undefined) added[status] = { ...shape, description };
  };
  add(400, 'The request is malformed: an address with %00 or a broken escape, a Host that is no host name, or input the route refuses');
  const signedIn = !(Array.isArray(schema['security']) && schema['security'].length === 0);
  if (signedIn) {
    add(401, 'No valid sign-in (Authorization: Bearer <token>), or an ended one');
    add(403, 'This account may not call this route (a worker account outside the video analysis worker routes, or a tester on them)');
  }
  if (!WITHOUT_BODY.has(method.toUpperCase())) add(413, 'The request body is over 1 MiB');
  if (!WITHOUT_BODY.has(method.toUpperCase()) && schema['body'] !== undefined) add(415, 'The body is not application/json');
  return Object.keys(added).length === 0 ? schema : { ...schema, response: { ...responses, ...added } };
}
