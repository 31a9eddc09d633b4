import fs from 'node:fs';
import path from 'node:path';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRecordForm } from '../../src/client/engine/use-record-form';
import { fakeFetch, okInfo } from './fake-server';
import { current, renderApp, signedIn } from './render';

// A toast names what happened (docs/PRODUCT.md section 4, a record's detail). Creating a record says so
// ('POI created'), not that it was updated.
const SCHEMAS = path.resolve(import.meta.dirname, '../../schemas');
const kinds = fs
  .readdirSync(SCHEMAS)
  .filter((f) => f.endsWith('.schema.json'))
  .map((f) => JSON.parse(fs.readFileSync(path.join(SCHEMAS, f), 'utf8')) as { title: string; 'x-kind': { messages: Record<string, string> } });

beforeAll(() => loadRecordForm(), 20_000);

describe('the kinds’ toasts', () => {
  it.each(kinds.map((k) => [k.title, k['x-kind'].messages] as const))('%s says created when it creates and updated when it updates', (_title, messages) => {
    expect(messages['created']).toMatch(/created/i);
    expect(messages['created']).not.toMatch(/updated/i);
    expect(messages['createFailed']).toMatch(/create/i);
    expect(messages['updated']).toMatch(/updated/i);
  });

  it('keeps SPEC’s texts and says POI created for a new POI', () => {
    const byTitle = Object.fromEntries(kinds.map((k) => [k.title, k['x-kind'].messages]));
    const poi = Object.values(byTitle).find((m) => m['updated'] === 'POI updated successfully');
    expect(poi?.['created']).toBe('POI created');
    expect(Object.values(byTitle).some((m) => m['created'] === 'Issue record created successfully')).toBe(true);
  });

  it('toasts POI created after a new POI is saved', async () => {
    signedIn();
    const { calls } = fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'POST /api/vtp/poi': (call) => ({ body: { code: 200, data: { ...(call.body as object), id: 77 } } }),
      'GET /api/vtp/poi/77': () => ({ body: { code: 200, data: { id: 77, title: 'Fuel stop' } } }),
      'GET /sharepoint/files': () => ({ body: { code: 200, data: [] } }),
    });
    renderApp('/data/poi/new');
    const user = userEvent.setup();
    const title = (await screen.findByLabelText('Title', {}, { timeout: 15_000 })) as HTMLInputElement;
    await user.type(title, 'Fuel stop');
    await user.click(screen.getByRole('button', { name: 'Create Record' }));
    expect(await screen.findByText('POI created')).toBeInTheDocument();
    expect(screen.queryByText('POI updated successfully')).not.toBeInTheDocument();
    await waitFor(() => expect(current.location?.pathname).toBe('/data/poi/77'));
    expect(calls.filter((c) => c.method === 'POST' && c.url.startsWith('/api/vtp/poi'))).toHaveLength(1);
  });
});
