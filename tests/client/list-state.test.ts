import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadListState } from '../../src/client/engine/record-list';
import { toKind } from '../../src/shared/kinds';
import type { KindSchema } from '../../src/shared/kind-types';

// A list filtered before an update that renamed the field (x-renamedFrom) comes back filtered by
// the field's name now, so the banner and the server agree on what it filters (decision 054).
const issue = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../schemas/issue.schema.json'), 'utf8')) as KindSchema;

describe('a list kept on the phone across a rename', () => {
  afterEach(() => window.sessionStorage.clear());

  it('carries a filter under an old name over to the field it moved to, and keeps the others', () => {
    const props = { ...issue.properties } as Record<string, unknown>;
    props['severityLevel'] = { ...(props['issueSeverity'] as object), 'x-renamedFrom': ['issueSeverity'] };
    delete props['issueSeverity'];
    const kind = toKind('issue', { ...issue, properties: props } as KindSchema);
    window.sessionStorage.setItem('list.issue', JSON.stringify({ page: 2, filters: { issueSeverity: 'A', city: 'Oxford', n: 3 } }));
    expect(loadListState(kind)).toMatchObject({ page: 2, filters: { severityLevel: 'A', city: 'Oxford' } });
  });
});
