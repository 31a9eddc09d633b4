import { screen, waitFor } from '@testing-library/react';
import { format } from 'date-fns';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeFetch, okInfo } from './fake-server';
import { renderApp, signedIn } from './render';
import { loadRecordForm } from '../../src/client/engine/use-record-form';

beforeAll(() => loadRecordForm(), 20_000);

// Capture in few taps: a new POI starts with its report time now and its reporter the signed-in
// user (x-default "now" and "user" in poi.schema.json).
describe('a new POI', () => {
  it('starts with the report time now and the signed-in user as reporter', async () => {
    signedIn('alice', { userName: 'alice', nickName: 'Alice Tester', deptName: 'P1', remark: 'V1' });
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo({ userName: 'alice', nickName: 'Alice Tester', deptName: 'P1', remark: 'V1' }) });
    renderApp('/data/poi/new');
    await screen.findByRole('button', { name: 'Create Record' });
    await waitFor(() => expect(screen.getByLabelText('Reporter')).toHaveValue('Alice Tester'));
    expect((document.getElementById('root_reportTime') as HTMLInputElement).value).toMatch(new RegExp(`^${format(new Date(), 'yyyy-MM-dd')}`));
  });
});
