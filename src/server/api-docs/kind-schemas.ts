import type { FastifyInstance } from 'fastify';
import type { Kind, KindProperty, KindRegistry } from '../../shared/kind-types.js';
import { formatHints } from '../../shared/formats.js';
import { envelope, ERROR_ENVELOPE } from '../http/envelope.js';

const KEEP = ['title', 'description', 'type', 'enum', 'minimum', 'maximum', 'maxLength', 'minLength', 'readOnly', 'items'] as const;

/** A property as documentation and serialisation want it: our x- keywords out, formats explained. */
function apiProperty(prop: KindProperty, forInput: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const describe = (more: string): void => {
    out['description'] = [out['description'], more].filter(Boolean).join(' ');
  };
  // 'default' is not kept: the serialiser would fill it into answers for fields a record does not have.
  for (const key of KEEP) if (prop[key] !== undefined) out[key] = structuredClone(prop[key]);
  if (prop.default !== undefined && !forInput) describe(`New records get ${JSON.stringify(prop.default)}.`);
  const hint = typeof prop.format === 'string' ? formatHints[prop.format] : undefined;
  if (hint) describe(`Text: ${hint}.`);
  const labels = Object.entries(prop['x-labels'] ?? {}).map(([v, l]) => `${v} = ${typeof l === 'string' ? l : Object.values(l).join(' / ')}`);
  if (prop['x-labels'] !== undefined && !forInput) describe(`Labels: ${labels.join('; ')}.`);
  if (forInput) {
    // A RuoYi-style form client sends numbers as text and may send a number for a text field; the
    // server reads both (records/validation.ts coerce) and checks the result against the kind schema.
    const types = [prop.type].flat().filter((t): t is string => typeof t === 'string');
    if (types.includes('number') || types.includes('integer')) out['type'] = [...new Set([...types, 'string', 'null'])];
    else if (types.includes('string')) out['type'] = [...new Set([...types, 'number', 'null'])];
    if (prop.enum) describe(`One of: ${prop.enum.map(String).join(', ')}.`);
    for (const key of ['enum', 'minimum', 'maximum', 'maxLength', 'readOnly']) delete out[key];
  }
  return out;
}

export const recordRef = (kind: Kind): string => `${kind.name}Record#`;

const STORED_AS_SAVED =
  'Values are returned as stored: a record saved under an earlier version of its schema file may hold a value the declaration here no longer allows (another type, a retired choice, a value outside new limits); the answer to GET by id, POST and PUT names each such value in warnings.';

/** The schemas answers are serialised with: record schemas without types and limits, so old values are sent as stored (decision 034). */
export function serialisableSchemas(externalSchemas: Record<string, unknown>, registry: KindRegistry): Record<string, unknown> {
  const out = { ...externalSchemas };
  for (const kind of registry.values()) {
    const id = `${kind.name}Record`;
    const schema = out[id] as { properties?: Record<string, Record<string, unknown>> } | undefined;
    if (schema?.properties === undefined) continue;
    const loose = (field: string, prop: Record<string, unknown>): unknown =>
      field === 'version' ? prop : prop['title'] === undefined ? {} : { title: prop['title'] };
    out[id] = { ...schema, properties: Object.fromEntries(Object.entries(schema.properties).map(([field, prop]) => [field, loose(field, prop)])) };
  }
  return out;
}
export const inputRef = (kind: Kind): string => `${kind.name}Input#`;

/**
 * The API's shared schemas, from the kind schema files: `<kind>Record` (answers), `<kind>Input`
 * (what a write may send) and the envelopes, which routes refer to by $ref.
 */
export function registerKindSchemas(app: FastifyInstance, registry: KindRegistry): void {
  app.addSchema(ERROR_ENVELOPE);
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
    properties['version'] = {
      type: 'integer',
      readOnly: true,
      description: 'The version of this record: send it back with an update (or as If-Match) so no edit is lost.',
    };
    app.addSchema({
      $id: `${kind.name}Record`,
      type: 'object',
      title: kind.schema.title,
      description: [kind.schema.description, STORED_AS_SAVED].filter(Boolean).join(' '),
      properties,
      additionalProperties: true,
    });
    const input: Record<string, unknown> = {};
    for (const field of kind.fields) if (!kind.readOnlyFields.has(field)) input[field] = apiProperty(kind.schema.properties[field] as KindProperty, true);
    input['id'] = { type: ['integer', 'string'], description: 'Update only: the id of the record to change.' };
    input['version'] = { type: ['integer', 'string', 'null'], description: 'Update only: the version the edit is based on (or send If-Match).' };
    app.addSchema({
      $id: `${kind.name}Input`,
      type: 'object',
      title: `${kind.schema.title} (input)`,
      description: `Fields a client may write. Read-only fields and RuoYi's BaseEntity fields (createBy, params, ...) are ignored, except the fields only a server flow sets (x-setBy, such as the video analysis statuses and report): sending one with a value other than the record's current one (or the schema default on a new record) is a 400 naming it; any other field the kind does not have is refused with a 400 naming it (an earlier name in x-renamedFrom is written to its property); null (and "" for numbers and choices) clears a field.`,
      properties: input,
      additionalProperties: true,
    });
  }
}

/** The envelope of one record as GET by id, POST and PUT answer it: with the warnings about values stored under an earlier schema. */
export const recordEnvelopeOf = (ref: string) =>
  envelope(ref, {
    warnings: {
      type: 'array',
      description:
        'Only when some stored value does not fit the schema as it is now (saved under an earlier version of it): kept as stored, and changed only when someone edits that field.',
      items: {
        type: 'object',
        properties: {
          field: { type: 'string' },
          title: { type: 'string' },
          problem: { type: 'string' },
          kept: {
            type: 'object',
            description: 'A value the record also holds under another of its names (key), kept and not shown (decision 054)',
            properties: { key: { type: 'string' }, value: {} },
          },
        },
        required: ['field', 'title', 'problem'],
      },
    },
  });
