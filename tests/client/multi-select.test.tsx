import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { SWRConfig } from 'swr';
import { beforeAll, describe, expect, it } from 'vitest';
import { RecordDetail } from '../../src/client/engine/record-detail';
import { FieldFilterButton, type FieldFilters } from '../../src/client/engine/field-filters';
import { registry } from '../../src/client/engine/registry';
import type { Kind, KindSchema } from '../../src/shared/kind-types';
import { toKind } from '../../src/shared/kinds';
import { ToastProvider } from '../../src/client/ui/toast';
import { loadRecordForm } from '../../src/client/engine/use-record-form';
import { fakeFetch, type FakeCall } from './fake-server';
import { signedIn } from './render';

// A list of choices (multi-select, docs/decisions/061) on a record's screen: its labels in view
// mode, chips in the form, and a value saved while the field was one choice read as a list of one.

function withConditions(): Kind {
  const schema = structuredClone((registry.get('issue') as Kind).schema) as KindSchema;
  schema.properties['conditions'] = {
    title: 'Conditions',
    type: 'array',
    items: { type: 'string', enum: ['rain', 'night', 'highway'] },
    uniqueItems: true,
    'x-labels': { rain: 'Rain', night: 'At night', highway: 'Highway' },
  } as KindSchema['properties'][string];
  schema['x-kind'].keyFields = [...(schema['x-kind'].keyFields ?? []), 'conditions'];
  return toKind('issue', schema);
}

function open(conditions: unknown) {
  signedIn();
  const record = { id: 5, issueTitle: 'Brake squeal', projectName: 'P1', vehicleNo: 'V1', conditions, version: 3 };
  const fake = fakeFetch({
    'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: record } }),
    'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }),
    'PUT /api/vtp/issueRecord': (call: FakeCall) => ({ body: { code: 200, data: { ...record, ...(call.body as object), version: 4 } } }),
  });
  // A cache of its own, as the app's screens get in render.tsx: both tests open record 5, and the
  // first one's answer must not stand in for the second's.
  render(
    <SWRConfig value={{ provider: () => new Map(), dedupingInterval: 0 }}>
      <MemoryRouter>
        <ToastProvider>
          <RecordDetail kind={withConditions()} id="5" />
        </ToastProvider>
      </MemoryRouter>
    </SWRConfig>,
  );
  return fake;
}

beforeAll(() => loadRecordForm(), 20_000);

describe('a list of choices', () => {
  it('shows its labels joined when viewed, and its choices as chips when edited', async () => {
    open(['night', 'rain']);
    expect(await screen.findByLabelText('Conditions', {}, { timeout: 15_000 })).toHaveTextContent('At night, Rain');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Edit' }));
    const chips = await waitFor(
      () => {
        const found = document.querySelectorAll('.p-chip-text, .p-multiselect-token-label');
        expect(found.length).toBeGreaterThan(0);
        return [...found].map((n) => n.textContent);
      },
      { timeout: 15_000 },
    );
    expect(chips).toEqual(['At night', 'Rain']);
  });

  it('reads a value saved while the field was one choice as a list of it, and saves another field without touching it', async () => {
    const { calls } = open('night');
    expect(await screen.findByLabelText('Conditions', {}, { timeout: 15_000 })).toHaveTextContent('At night');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Edit' }));
    await waitFor(() => expect([...document.querySelectorAll('.p-chip-text, .p-multiselect-token-label')].map((n) => n.textContent)).toEqual(['At night']), {
      timeout: 15_000,
    });
    const form = within(document.querySelector('.record-form') as HTMLElement);
    await user.type(form.getByLabelText('City'), 'York');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ id: 5, version: 3, city: 'York' });
  });
});

describe('the list filter of a list of choices', () => {
  it('picks the choices as chips, by their labels, and asks for any of them', async () => {
    const kind = withConditions();
    kind.meta.filters = { ...kind.meta.filters, conditions: 'exact' };
    const applied: FieldFilters[] = [];
    render(<FieldFilterButton kind={kind} value={{ conditions: 'rain' }} onApply={(next) => applied.push(next)} />);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Search' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('(any of)')).toBeInTheDocument();
    const chips = (): (string | null)[] => [...dialog.querySelectorAll('.p-chip-text, .p-multiselect-token-label')].map((n) => n.textContent);
    expect(chips()).toEqual(['Rain']);
    await user.click(dialog.querySelector('.p-multiselect-trigger') as HTMLElement);
    const option = await waitFor(() => {
      const found = [...document.querySelectorAll('li[role="option"]')].find((li) => li.textContent === 'Highway');
      if (!(found instanceof HTMLElement)) throw new Error('the choices are not open');
      return found;
    });
    await user.click(option);
    await waitFor(() => expect(chips()).toEqual(['Rain', 'Highway']));
    await user.click(within(dialog).getByRole('button', { name: 'Search' }));
    expect(applied).toEqual([{ conditions: 'rain,highway' }]);
  });
});
