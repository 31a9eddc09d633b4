import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeFetch, okInfo } from './fake-server';
import { current, renderApp, signedIn } from './render';

describe('navigation', () => {
  it('has Workspace, Data and Profile, with Data active on every /data page', async () => {
    signedIn();
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo() });
    renderApp('/data/issue/12');
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    expect(nav).toHaveTextContent('Workspace');
    expect(screen.getByRole('link', { name: 'Data' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByRole('link', { name: 'Profile' })).not.toHaveAttribute('aria-current');
    expect(screen.queryByText('SP测试')).not.toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('link', { name: 'Workspace' }));
    await waitFor(() => expect(current.location?.pathname).toBe('/dashboard'));
    expect(screen.getByRole('link', { name: 'Workspace' })).toHaveAttribute('aria-current', 'page');
  });

  it("shows 'SP测试' only to the test username", async () => {
    signedIn('sptester', { userName: 'sptester', deptName: 'P1', remark: 'V1' });
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo({ userName: 'sptester', deptName: 'P1', remark: 'V1' }) });
    renderApp('/data');
    expect(await screen.findByRole('link', { name: 'SP测试' })).toHaveAttribute('href', '/sharepoint-test');
  });

  it('shows the 404 page for any unknown path the server does not redirect, with a way home', async () => {
    const { calls } = fakeFetch({ 'GET /no/such/page': () => ({ status: 404, body: '' }) });
    renderApp('/no/such/page');
    expect(await screen.findByText('Oops! Page not found')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Return to Home' })).toHaveAttribute('href', '/');
    // The page asked the server whether the address moved (a kind's earlier route, decision 059).
    await waitFor(() => expect(calls.map((c) => `${c.method} ${c.url}`)).toContain('GET /no/such/page'));
    expect(current.location?.pathname).toBe('/no/such/page');
  });

  it("goes from a kind's earlier route to where the server redirects it, keeping the query", async () => {
    signedIn();
    const { fetchMock } = fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'GET /data/bugs/12': () => ({ body: '' }),
      // The record the redirect leads to, which its screen then loads.
      'GET /api/vtp/issueRecord/12': () => ({ body: { code: 200, data: { id: 12, version: 1, issueTitle: 'Moved' } } }),
    });
    const answer = fetchMock.getMockImplementation();
    // The server answers the old route with a 301 that fetch follows: the answer says so.
    fetchMock.mockImplementation(async (input, init) => {
      const res = (await answer?.(input, init)) as Response;
      if (String(input).startsWith('/data/bugs/12')) {
        Object.defineProperty(res, 'redirected', { value: true });
        Object.defineProperty(res, 'url', { value: `${window.location.origin}/data/issue/12?tab=files` });
      }
      return res;
    });
    renderApp('/data/bugs/12?tab=files');
    await waitFor(() => expect(`${current.location?.pathname}${current.location?.search}`).toBe('/data/issue/12?tab=files'));
  });
});
