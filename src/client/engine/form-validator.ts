import { deepEquals, type RJSFSchema, type ValidationData, type ValidatorType } from '@rjsf/utils';

// The form never validates (the server does), but RJSF asks its validator whether data matches a
// schema to pick if/then/else, oneOf/anyOf and dependencies branches; this structural check
// answers without ajv (110 KB of the detail screen's JavaScript). The client build also aliases
// @rjsf/validator-ajv8 here (vite.config.ts): @rjsf/core imports it for getTestRegistry, which we
// never call, and its default export compiles an Ajv at load time.

type Json = unknown;
type Schema = RJSFSchema | boolean;

const isObject = (x: Json): x is Record<string, Json> => typeof x === 'object' && x !== null && !Array.isArray(x);

const TYPES: Record<string, (data: Json) => boolean> = {
  string: (d) => typeof d === 'string',
  number: (d) => typeof d === 'number' && Number.isFinite(d),
  integer: (d) => typeof d === 'number' && Number.isInteger(d),
  boolean: (d) => typeof d === 'boolean',
  null: (d) => d === null,
  array: Array.isArray,
  object: isObject,
};
const hasType = (data: Json, type: string): boolean => TYPES[type]?.(data) ?? true;

/** Follows a local reference ('#/definitions/x', or RJSF's own root prefix) within the root schema. */
function resolveRef(ref: string, root: Schema): Schema | undefined {
  const at = ref.indexOf('#');
  if (at < 0) return undefined;
  let node: Json = root;
  const keys = ref
    .slice(at + 1)
    .split('/')
    .filter(Boolean);
  for (const raw of keys) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return typeof node === 'boolean' || isObject(node) ? (node as Schema) : undefined;
}

function numberLimits(s: RJSFSchema, n: number): boolean {
  if (typeof s.minimum === 'number' && n < s.minimum) return false;
  if (typeof s.maximum === 'number' && n > s.maximum) return false;
  if (typeof s.exclusiveMinimum === 'number' && n <= s.exclusiveMinimum) return false;
  if (typeof s.exclusiveMaximum === 'number' && n >= s.exclusiveMaximum) return false;
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0 && Math.abs(n / s.multipleOf - Math.round(n / s.multipleOf)) > 1e-9) return false;
  return true;
}

function stringLimits(s: RJSFSchema, text: string): boolean {
  const length = [...text].length;
  if (typeof s.minLength === 'number' && length < s.minLength) return false;
  if (typeof s.maxLength === 'number' && length > s.maxLength) return false;
  if (typeof s.pattern === 'string') {
    try {
      if (!new RegExp(s.pattern, 'u').test(text)) return false;
    } catch {
      // A pattern this browser cannot read decides nothing.
    }
  }
  return true;
}

function objectMatches(s: RJSFSchema, data: Record<string, Json>, root: Schema, depth: number): boolean {
  if (Array.isArray(s.required) && s.required.some((k) => data[k] === undefined)) return false;
  const props = s.properties ?? {};
  for (const [key, sub] of Object.entries(props)) if (data[key] !== undefined && !matches(sub as Schema, data[key], root, depth)) return false;
  if (s.additionalProperties === false && Object.keys(data).some((k) => !(k in props))) return false;
  if (isObject(s.dependencies)) {
    for (const [key, dep] of Object.entries(s.dependencies)) {
      if (data[key] === undefined) continue;
      if (Array.isArray(dep) ? dep.some((k) => data[k as string] === undefined) : !matches(dep as Schema, data, root, depth)) return false;
    }
  }
  return true;
}

function arrayMatches(s: RJSFSchema, data: Json[], root: Schema, depth: number): boolean {
  if (typeof s.minItems === 'number' && data.length < s.minItems) return false;
  if (typeof s.maxItems === 'number' && data.length > s.maxItems) return false;
  if (Array.isArray(s.items)) return s.items.every((sub, i) => i >= data.length || matches(sub as Schema, data[i], root, depth));
  if (s.items !== undefined) return data.every((x) => matches(s.items as Schema, x, root, depth));
  return true;
}

/** Whether data matches a JSON schema, for the keywords our schema files and RJSF's branching use. */
export function matches(s: Schema | undefined, data: Json, root: Schema = s ?? true, depth = 0): boolean {
  if (s === undefined || s === true) return true;
  if (s === false) return false;
  // A reference cycle that never reaches data decides nothing.
  if (depth > 64) return true;
  const next = depth + 1;
  if (typeof s.$ref === 'string') {
    const target = resolveRef(s.$ref, root);
    if (target !== undefined && !matches(target, data, root, next)) return false;
  }
  if (s.const !== undefined && !deepEquals(s.const, data)) return false;
  if (Array.isArray(s.enum) && !s.enum.some((e) => deepEquals(e, data))) return false;
  if (s.type !== undefined && ![s.type].flat().some((t) => hasType(data, t))) return false;
  if (typeof data === 'number' && !numberLimits(s, data)) return false;
  if (typeof data === 'string' && !stringLimits(s, data)) return false;
  if (isObject(data) && !objectMatches(s, data, root, next)) return false;
  if (Array.isArray(data) && !arrayMatches(s, data, root, next)) return false;
  if (s.allOf && !s.allOf.every((sub) => matches(sub as Schema, data, root, next))) return false;
  if (s.anyOf && !s.anyOf.some((sub) => matches(sub as Schema, data, root, next))) return false;
  if (s.oneOf && s.oneOf.filter((sub) => matches(sub as Schema, data, root, next)).length !== 1) return false;
  if (s.not !== undefined && matches(s.not as Schema, data, root, next)) return false;
  if (s.if !== undefined) {
    const branch = matches(s.if as Schema, data, root, next) ? s.then : s.else;
    if (branch !== undefined && !matches(branch as Schema, data, root, next)) return false;
  }
  return true;
}

/** RJSF's validator for our forms: never any errors (the server validates), and a structural isValid. */
export const formValidator: ValidatorType = {
  validateFormData(): ValidationData<unknown> {
    return { errors: [], errorSchema: {} };
  },
  isValid(schema, formData, rootSchema) {
    return matches(schema, formData, rootSchema);
  },
  rawValidation(schema, formData) {
    return matches(schema, formData) ? { errors: [] } : { errors: [{ message: 'does not match the schema' }] as never[] };
  },
};

export default formValidator;
