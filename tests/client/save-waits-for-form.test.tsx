import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeFetch, okInfo } from './fake-server';
import { renderApp, signedIn } from './render';

// A new record's screen draws its fields read-only until the form's chunk is here; its Save
// waits for the form, so a tap cannot save what the tester has not seen or filled in.
const gate = vi.hoisted(() => {
  let open = (): void => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
});
vi.mock('../../src/client/engine/record-form', async (importOriginal) => {
  await gate.opened;
  return importOriginal();
});

describe('a new record while its form is on its way', () => {
  it('offers Save only once the form is there', async () => {
    const user = { userName: 'alice', nickName: 'Alice Tester', deptName: 'P1', remark: 'V1' };
    signedIn('alice', user);
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo(user) });
    renderApp('/data/poi/new');
    const save = await screen.findByRole('button', { name: 'Create Record' });
    // The fields are drawn read-only meanwhile, and Save cannot be tapped.
    expect(save).toBeDisabled();
    gate.open();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Create Record' })).toBeEnabled(), { timeout: 20_000 });
    expect(screen.getByLabelText('Reporter')).toHaveValue('Alice Tester');
  }, 30_000);
});
