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

  it('shows the 404 page for any unknown path, with a way home', async () => {
    fakeFetch({});
    renderApp('/no/such/page');
    expect(await screen.findByText('Oops! Page not found')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Return to Home' })).toHaveAttribute('href', '/');
  });
});
