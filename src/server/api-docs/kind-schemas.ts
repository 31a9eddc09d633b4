import type { FastifyInstance } from 'fastify';
import type { Kind, KindProperty, KindRegistry } from '../../shared/kind-types.js';
import { formatHints } from '../../shared/formats.js';

/**
 * JSON schemas for the API, built from the kind schema files and registered once with addSchema:
 * what a record looks like in answers (`<kind>Record`), what a create or update may send
 * (`<kind>Input`), and the envelopes. Routes refer to them by $ref; @fastify/swagger turns them
 * into the OpenAPI document, so a property added to a schema file appears there with no code.
 */

const KEEP = ['title', 'description', 'type', 'enum', 'minimum', 'maximum', 'maxLength', 'minLength', 'readOnly', 'items'] as const;

/** A property as documentation and serialisation want it: our x- keywords out, formats explained. */
function apiProperty(prop: KindProperty, forInput: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // 'default' is not kept: the serialiser would fill it into answers for fields a record does not have.
  for (const key of KEEP) if (prop[key] !== undefined) out[key] = structuredClone(prop[key]);
  if (prop.default !== undefined && !forInput) out['description'] = [out['description'], `New records get ${JSON.stringify(prop.default)}.`].filter(Boolean).join(' ');
  const format = typeof prop.format === 'string' ? prop.format : undefined;
  const hint = format ? formatHints[format] : undefined;
  if (hint) out['description'] = [out['description'], `Text: ${hint}.`].filter(Boolean).join(' ');
  if (forInput) {
    // A RuoYi-style form client sends numbers as text and may send a number for a text field; the
    // server reads both (records/validation.ts coerce) and checks the result against the kind schema.
    const types = [prop.type].flat().filter((t): t is string => typeof t === 'string');
    if (types.includes('number') || types.includes('integer')) out['type'] = [...new Set([...types, 'string', 'null'])];
    else if (types.includes('string')) out['type'] = [...new Set([...types, 'number', 'null'])];
    delete out['enum'];
    if (prop.enum) out['description'] = [out['description'], `One of: ${prop.enum.map(String).join(', ')}.`].filter(Boolean).join(' ');
    delete out['minimum'];
    delete out['maximum'];
    delete out['maxLength'];
    delete out['readOnly'];
  }
  return out;
}

export const recordRef = (kind: Kind): string => `${kind.name}Record#`;
export const inputRef = (kind: Kind): string => `${kind.name}Input#`;

export function registerKindSchemas(app: FastifyInstance, registry: KindRegistry): void {
  app.addSchema({
    $id: 'ErrorEnvelope',
    type: 'object',
    description: 'A refusal: code is also the HTTP status; msg says what is wrong and how to fix it.',
    properties: { code: { type: 'integer' }, msg: { type: 'string' }, data: {} },
    required: ['code', 'msg'],
  });
  app.addSchema({
    $id: 'FieldConflict',
    type: 'object',
    description: 'A field both you and someone else changed since the version you loaded.',
    properties: { field: { type: 'string' }, title: { type: 'string' }, base: {}, theirs: {}, yours: {} },
    required: ['field', 'title'],
  });
  for (const kind of registry.values()) {
    const properties: Record<string, unknown> = {};
    for (const field of kind.fields) properties[field] = apiProperty(kind.schema.properties[field] as KindProperty, false);
    properties['version'] = { type: 'integer', readOnly: true, description: 'The version of this record: send it back with an update (or as If-Match) so no edit is lost.' };
    app.addSchema({ $id: `${kind.name}Record`, type: 'object', title: kind.schema.title, description: kind.schema.description, properties, additionalProperties: true });
    const input: Record<string, unknown> = {};
    for (const field of kind.fields) if (!kind.readOnlyFields.has(field)) input[field] = apiProperty(kind.schema.properties[field] as KindProperty, true);
    input['id'] = { type: ['integer', 'string'], description: 'Update only: the id of the record to change.' };
    input['version'] = { type: ['integer', 'string', 'null'], description: 'Update only: the version the edit is based on (or send If-Match).' };
    app.addSchema({
      $id: `${kind.name}Input`,
      type: 'object',
      title: `${kind.schema.title} (input)`,
      description: `Fields a client may write. Read-only and unknown fields are ignored; null (and "" for numbers and choices) clears a field.`,
      properties: input,
      additionalProperties: true,
    });
  }
}

/** The envelope of one record, or of a list page. */
export const envelopeOf = (ref: string) => ({ type: 'object', properties: { code: { type: 'integer' }, msg: { type: 'string' }, data: { $ref: ref } } });
export const listEnvelopeOf = (ref: string) => ({
  type: 'object',
  properties: { code: { type: 'integer' }, msg: { type: 'string' }, rows: { type: 'array', items: { $ref: ref } }, total: { type: 'integer' } },
});
export const errorResponses = {
  400: { $ref: 'ErrorEnvelope#' },
  401: { $ref: 'ErrorEnvelope#' },
  403: { $ref: 'ErrorEnvelope#' },
  404: { $ref: 'ErrorEnvelope#' },
};
