import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { drafts } from '../../../src/client/engine/drafts';
import { registry } from '../../../src/client/engine/registry';
import type { Kind, KindSchema } from '../../../src/shared/kind-types';
import { toKind } from '../../../src/shared/kinds';

// A draft kept on an old phone is typed on the form of the app it ran; after "Update now" the app
// has the current form (docs/decisions/060). Whatever the schema change (renames, removals) and
// whatever was typed, the draft comes back on the current form: renamed fields under their new
// names, the fields the form no longer has apart with their values, nothing typed lost.

const issue = registry.get('issue') as Kind;
const writable = issue.fields.filter((f) => !issue.readOnlyFields.has(f));

/** The issue kind after an admin renamed (to `<name>Now`) and removed some of its fields. */
function changed(renamed: string[], removed: string[]): Kind {
  const schema = structuredClone(issue.schema) as KindSchema;
  for (const old of renamed) {
    schema.properties[`${old}Now`] = { ...schema.properties[old], 'x-renamedFrom': [old] } as KindSchema['properties'][string];
    delete schema.properties[old];
  }
  for (const gone of removed) delete schema.properties[gone];
  return toKind('issue', schema);
}

const change = fc
  .tuple(fc.subarray(writable), fc.subarray(writable))
  .map(([renamed, removed]) => ({ renamed, removed: removed.filter((f) => !renamed.includes(f)) }));
const typed = fc.dictionary(fc.constantFrom(...writable), fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { minKeys: 1 });

beforeEach(() => localStorage.clear());

describe('a draft typed on an earlier form', () => {
  it('comes back on the current form: renamed fields moved, removed ones apart, nothing lost', () => {
    fc.assert(
      fc.property(change, typed, fc.option(fc.nat()), ({ renamed, removed }, values, baseVersion) => {
        localStorage.clear();
        // As the app before this change kept it: no form hash.
        localStorage.setItem('draft.issue.5', JSON.stringify({ savedAt: Date.now(), values, ...(baseVersion === null ? {} : { baseVersion }) }));
        const kind = changed(renamed, removed);
        const got = drafts.load(kind, '5');
        expect(got).not.toBeNull();
        for (const key of Object.keys(got?.values ?? {})) expect(kind.schema.properties).toHaveProperty(key);
        for (const [field, value] of Object.entries(values)) {
          if (renamed.includes(field)) expect(got?.values[`${field}Now`]).toEqual(value);
          else if (removed.includes(field)) expect(got?.left?.[field]).toEqual(value);
          else expect(got?.values[field]).toEqual(value);
        }
        const count = Object.keys(got?.values ?? {}).length + Object.keys(got?.left ?? {}).length;
        expect(count).toBe(Object.keys(values).length);
        expect(got?.baseVersion).toBe(baseVersion ?? undefined);
      }),
      { seed: 41 },
    );
  });

  it('is kept as typed when it was typed on the current form, and what is left stays until discarded', () => {
    fc.assert(
      fc.property(change, typed, typed, ({ renamed, removed }, values, left) => {
        localStorage.clear();
        const kind = changed(renamed, removed);
        // A draft of the current form may name an old name as a field of its own only when the
        // name is a property again; its values are the form's, whatever the names.
        drafts.save(kind, '5', { values, baseVersion: 3, left });
        expect(drafts.load(kind, '5')).toEqual({ values, baseVersion: 3, left });
        drafts.save(kind, '5', { values: {}, left });
        expect(drafts.load(kind, '5')).toEqual({ values: {}, baseVersion: undefined, left });
        drafts.save(kind, '5', { values: {}, left: {} });
        expect(drafts.load(kind, '5')).toBeNull();
      }),
      { seed: 41, numRuns: 50 },
    );
  });
});
