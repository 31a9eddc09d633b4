import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { SWRConfig } from 'swr';
import { beforeAll, describe, expect, it } from 'vitest';
import { RecordDetail } from '../../src/client/engine/record-detail';
import { registry } from '../../src/client/engine/registry';
import type { Kind, KindSchema } from '../../src/shared/kind-types';
import { toKind } from '../../src/shared/kinds';
import { ToastProvider } from '../../src/client/ui/toast';
import { loadRecordForm } from '../../src/client/engine/use-record-form';
import { fakeFetch, type FakeCall } from './fake-server';
import { signedIn } from './render';

// An old phone's kept edit after "A new version of this form is available" and "Update now"
// (docs/decisions/060): the admin renamed Weather (weather -> weatherNow) and removed Software
// Version; the tester had typed both, and a city, on the old form. The updated app shows the
// renamed field's value in its new place, the removed field's value read-only apart, saves what
// the current form has, and keeps the draft on Cancel until the tester discards it.

function updatedIssue(): Kind {
  const schema = structuredClone((registry.get('issue') as Kind).schema) as KindSchema;
  // Weather as the free text it was before decision 080 made it a choice: the rename is the point here.
  const { enum: _choices, 'x-labels': _labels, ...weather } = schema.properties['weather'] as KindSchema['properties'][string];
  schema.properties['weatherNow'] = { ...weather, title: 'Weather Now', 'x-renamedFrom': ['weather'] } as KindSchema['properties'][string];
  delete schema.properties['weather'];
  delete schema.properties['softwareVersion'];
  return toKind('issue', schema);
}

const RECORD = { id: 5, issueTitle: 'Brake squeal', projectName: 'P1', vehicleNo: 'V1', weatherNow: 'Rain', version: 3 };
const OLD_DRAFT = { savedAt: Date.now(), values: { weather: 'Fog', softwareVersion: 'V9.9', city: 'York' }, baseVersion: 3 };

function open() {
  signedIn();
  localStorage.setItem('draft.issue.5', JSON.stringify(OLD_DRAFT));
  const fake = fakeFetch({
    'GET /api/vtp/issueRecord/5': () => ({ body: { code: 200, data: RECORD } }),
    'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }),
    'PUT /api/vtp/issueRecord': (call: FakeCall) => ({ body: { code: 200, data: { ...RECORD, ...(call.body as object), version: 4 } } }),
  });
  // A cache of its own, as the app's screens get in render.tsx: both tests open record 5, and the
  // first one's answer must not stand in for the second's.
  render(
    <SWRConfig value={{ provider: () => new Map(), dedupingInterval: 0 }}>
      <MemoryRouter>
        <ToastProvider>
          <RecordDetail kind={updatedIssue()} id="5" />
        </ToastProvider>
      </MemoryRouter>
    </SWRConfig>,
  );
  return fake;
}

const field = (label: string): HTMLInputElement => screen.getByLabelText(label) as HTMLInputElement;

beforeAll(() => loadRecordForm(), 20_000);

describe("an old phone's kept edit after Update now", () => {
  it('shows the renamed field with what was typed, and the removed one read-only apart, then saves only the current form', async () => {
    const { calls } = open();
    // The screen's first load (its lazy chunks) gets the 15 s other screen tests give it on busy cores.
    await waitFor(() => expect(field('Weather Now')).toHaveValue('Fog'), { timeout: 15_000 });
    expect(field('City')).toHaveValue('York');
    const left = within(screen.getByTestId('kept-edits'));
    expect(left.getByText('No longer in this form: kept on this phone, not sent')).toBeInTheDocument();
    expect(within(screen.getByTestId('left-fields')).getByText('softwareVersion').nextSibling).toHaveTextContent('V9.9');
    expect(screen.queryByLabelText('Software Version')).toBeNull();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ id: 5, version: 3, weatherNow: 'Fog', city: 'York' });
    // Saved: what the form no longer has is still kept, and shown, until discarded.
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Save Changes' })).toBeNull());
    expect(JSON.parse(localStorage.getItem('draft.issue.5') ?? '{}')).toMatchObject({ values: {}, left: { softwareVersion: 'V9.9' } });
    expect(screen.getByTestId('left-fields')).toHaveTextContent('V9.9');
  });

  it('keeps the draft on Cancel, goes on with it on Edit, and lets it go on Discard', async () => {
    open();
    const user = userEvent.setup();
    await waitFor(() => expect(field('Weather Now')).toHaveValue('Fog'), { timeout: 15_000 });
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(await screen.findByText('Unsaved changes are kept on this phone; Edit goes on with them.')).toBeInTheDocument();
    expect(JSON.parse(localStorage.getItem('draft.issue.5') ?? '{}')).toMatchObject({
      values: { weatherNow: 'Fog', city: 'York' },
      left: { softwareVersion: 'V9.9' },
    });
    await user.click(screen.getByRole('button', { name: 'Edit' }));
    await waitFor(() => expect(field('Weather Now')).toHaveValue('Fog'));
    expect(field('City')).toHaveValue('York');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await user.click(await screen.findByRole('button', { name: 'Discard' }));
    expect(localStorage.getItem('draft.issue.5')).toBeNull();
    expect(screen.queryByTestId('kept-edits')).toBeNull();
  });
});
