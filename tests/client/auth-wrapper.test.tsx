import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it, vi } from 'vitest';
import { AuthContext, RequireAuth } from '../../src/client/auth/auth-context';
import { fakeFetch, okInfo, okLogin } from './fake-server';

// What the screens these tests land on ask for: the Data page's figures, the Profile's app version.
const dataPage = {
  'GET /api/vtp/stats/total': () => ({ body: { code: 200, data: {} } }),
  'GET /api/vtp/stats/day': () => ({ body: { code: 200, data: { date: '2026-11-20' } } }),
  'GET /api/vtp/stats/days': () => ({ body: { code: 200, data: { from: '2026-11-07', to: '2026-11-20', days: [] } } }),
};
const profilePage = { 'GET /manifest.json': () => ({ body: { version: '1.0.0' } }) };
import { current, renderApp, signedIn } from './render';

describe('the protection wrapper', () => {
  it("shows the 'Loading...' spinner while auth resolves", () => {
    const value = { state: { status: 'loading' as const }, signIn: vi.fn(), signOut: vi.fn(), expire: vi.fn() };
    render(
      <MemoryRouter>
        <AuthContext.Provider value={value}>
          <RequireAuth>
            <p>secret</p>
          </RequireAuth>
        </AuthContext.Provider>
      </MemoryRouter>,
    );
    expect(screen.getByRole('status')).toHaveTextContent('Loading...');
    expect(screen.queryByText('secret')).not.toBeInTheDocument();
  });

  it('sends a visitor to /login, then to where they were going after signing in', async () => {
    fakeFetch({ 'POST /api/auth/login': okLogin(), 'GET /api/system/user/getInfo': okInfo(), ...profilePage });
    renderApp('/profile?tab=1');
    await waitFor(() => expect(current.location?.pathname).toBe('/login'));
    expect(current.location?.state).toEqual({ from: '/profile?tab=1' });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Username'), 'alice');
    await user.type(screen.getByLabelText('Password'), 'pw');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(`${current.location?.pathname}${current.location?.search}`).toBe('/profile?tab=1'));
    expect(await screen.findByRole('heading', { name: 'My Profile' })).toBeInTheDocument();
  });

  it('lets a signed-in user straight in, even with no connection', async () => {
    signedIn();
    fakeFetch({ 'GET /api/system/user/getInfo': () => Promise.reject(new TypeError('Failed to fetch')) });
    renderApp('/dashboard');
    expect(await screen.findByText('Welcome back, alice')).toBeInTheDocument();
    await new Promise((r) => setTimeout(r, 50));
    expect(current.location?.pathname).toBe('/dashboard');
  });

  it('redirects / to /data', async () => {
    signedIn();
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo(), ...dataPage });
    renderApp('/');
    await waitFor(() => expect(current.location?.pathname).toBe('/data'));
    expect(await screen.findByRole('heading', { name: 'Data Management' })).toBeInTheDocument();
  });

  it('sends an already signed-in visitor of /login on to the app', async () => {
    signedIn();
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo(), ...dataPage });
    renderApp('/login');
    await waitFor(() => expect(current.location?.pathname).toBe('/data'));
  });
});

describe('a 401 from the server', () => {
  it('clears the token and sends the user to /login remembering the page', async () => {
    signedIn();
    fakeFetch({
      'GET /api/system/user/getInfo': () => ({ status: 401, body: { code: 401, msg: 'Your session has expired or was signed out; please sign in again' } }),
    });
    const { rememberRecord, rememberedRecord } = await import('../../src/client/api/records');
    rememberRecord('issue', '7', { id: 7, issueTitle: 'Read before the sign-in ended' });
    renderApp('/vehicle');
    await waitFor(() => expect(current.location?.pathname).toBe('/login'));
    expect(current.location?.state).toEqual({ from: '/vehicle' });
    expect(localStorage.getItem('accessToken')).toBeNull();
    // Nothing read under the ended sign-in is kept for whoever signs in next on this page.
    expect(rememberedRecord('issue', '7')).toBeUndefined();
  });

  it('does the same for a body code 401 sent with HTTP 200, as the original backend does', async () => {
    signedIn();
    fakeFetch({ 'GET /api/system/user/getInfo': () => ({ status: 200, body: { code: 401, msg: '认证失败，无法访问系统资源' } }), ...profilePage });
    renderApp('/profile');
    await waitFor(() => expect(current.location?.pathname).toBe('/login'));
    expect(localStorage.getItem('accessToken')).toBeNull();
  });
});
