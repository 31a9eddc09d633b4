import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRegistry } from '../../src/shared/registry-check.js';
import type { KindSchema } from '../../src/shared/kind-types.js';
import { readSchemaFiles } from '../../src/server/schemas.js';
import { ROOT } from '../helpers/server.js';

/** Kinds have their own identity (issue 41, item 5; decision 059): what a copied kind must change, said about the copy. */
const files = readSchemaFiles(path.join(ROOT, 'schemas')) as unknown as Record<string, KindSchema>;
const kindName = fc.stringMatching(/^[a-z][a-z0-9]{0,9}$/).filter((n) => files[n] === undefined);
/** What an admin may already have changed in the copy, of what the check asks for. */
const fixes = fc.record({ id: fc.boolean(), api: fc.boolean(), route: fc.boolean(), stats: fc.boolean(), packages: fc.boolean() });

function copyOfIssue(name: string, fix: { id: boolean; api: boolean; route: boolean; stats: boolean; packages: boolean }): KindSchema {
  const copy = structuredClone(files['issue']) as KindSchema;
  const meta: Record<string, any> = copy['x-kind'];
  if (fix.id) copy.$id = `${name}.schema.json`;
  if (fix.api) meta.apiPath = `/vtp/${name}Record`;
  if (fix.route) meta.route = `/data/${name}`;
  if (fix.stats) meta.dataPage = { ...meta.dataPage, count: `${name}Count` };
  if (fix.packages) meta.packages = [{ ...meta.packages[0], route: `download_${name}Files` }];
  delete meta.analysis;
  return copy;
}

describe('a copied kind', () => {
  it('is told about every collision in its own file, never in the original', () => {
    fc.assert(
      fc.property(kindName, fixes, (name, fix) => {
        const problems = checkRegistry({ ...files, [name]: copyOfIssue(name, fix) });
        // The attachment folder was not changed, so there is always at least that.
        expect(problems).toContain(`${name}.schema.json: attachment folder issue_records/ is also used by issue.schema.json`);
        for (const p of problems) expect(p.startsWith(`${name}.schema.json: `)).toBe(true);
      }),
    );
  });

  it('cannot share an attachment folder with another kind: the first folders differ, in any letter case', () => {
    fc.assert(
      fc.property(kindName, fc.stringMatching(/^[A-Za-z0-9_]{1,12}$/), (name, first) => {
        const copy = copyOfIssue(name, { id: true, api: true, route: true, stats: true, packages: true });
        copy['x-kind'].attachments = { folder: `${first}/{vehicleNo}/${name}_{id}` };
        const collides = first.toLowerCase() === 'issue_records';
        const problems = checkRegistry({ ...files, [name]: copy });
        expect(problems).toEqual(collides ? [`${name}.schema.json: attachment folder ${first.toLowerCase()}/ is also used by issue.schema.json`] : []);
      }),
    );
  });

  it('refuses a folder that starts with a placeholder, which could be any other kind folder', () => {
    fc.assert(
      fc.property(kindName, fc.constantFrom('{vehicleNo}', '{id}', 'x{vehicleNo}'), (name, first) => {
        const copy = copyOfIssue(name, { id: true, api: true, route: true, stats: true, packages: true });
        copy['x-kind'].attachments = { folder: `${first}/${name}_{id}` };
        expect(checkRegistry({ ...files, [name]: copy })).toEqual([
          `${name}.schema.json: x-kind.attachments.folder must start with a folder name of its own, without a placeholder (such as "${name}_records/..."), so that no other kind's attachment folders can be the same`,
        ]);
      }),
    );
  });
});
