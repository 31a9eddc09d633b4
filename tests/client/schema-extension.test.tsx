import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { beforeAll, describe, expect, it } from 'vitest';
import { RecordDetail } from '../../src/client/engine/record-detail';
import { registry } from '../../src/client/engine/registry';
import { poiSheetRows } from '../../src/client/kinds/poi-exports';
import type { Kind, KindSchema } from '../../src/shared/kind-types';
import { toKind } from '../../src/shared/kinds';
import { ToastProvider } from '../../src/client/ui/toast';
import { loadRecordForm } from '../../src/client/engine/use-record-form';

/** A copy of a shipped schema with one more property, as an admin would add it. */
function extended(name: string): Kind {
  const schema = structuredClone((registry.get(name) as Kind).schema) as KindSchema;
  schema.properties['tyrePressure'] = { title: 'Tyre Pressure (bar)', type: 'number', minimum: 0 };
  return toKind(name, schema);
}

// The form's chunk loads when editing starts; here it is ready, as on a phone that idled a moment
// (the summary shown before it is tested in record-summary.test.tsx).
beforeAll(() => loadRecordForm(), 20_000);

describe('a property added to a schema file', () => {
  it('appears in the new-record form with no code change', async () => {
    render(
      <MemoryRouter>
        <ToastProvider>
          <RecordDetail kind={extended('issue')} id="new" />
        </ToastProvider>
      </MemoryRouter>,
    );
    expect(await screen.findByLabelText('Tyre Pressure (bar)')).toBeEnabled();
  });

  it('becomes a column of the POI Excel export', () => {
    const { columns, data } = poiSheetRows(extended('poi'), [{ id: 1, tyrePressure: 2.1 }]);
    expect(columns).toContain('tyrePressure');
    expect(data[0]).toMatchObject({ tyrePressure: 2.1 });
  });
});
