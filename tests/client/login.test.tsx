import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeFetch, okInfo, okLogin } from './fake-server';
import { current, renderApp } from './render';

/** The landing screen's reads, left pending: these tests are about where sign-in lands, not what /data shows. */
const landingReads = Object.fromEntries(['total', 'day', 'days'].map((k) => [`GET /api/vtp/stats/${k}`, () => new Promise<never>(() => {})]));

describe('Login', () => {
  it('shows the product, the subtitle and both fields', async () => {
    fakeFetch({});
    renderApp('/login');
    expect(await screen.findByRole('heading', { name: 'Road Test Data Management' })).toBeInTheDocument();
    expect(screen.getByText('Enter your credentials to access your account')).toBeInTheDocument();
    expect(screen.getByLabelText('Username')).toBeInTheDocument();
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  });

  it('does nothing while either field is empty, and says which is missing', async () => {
    const { calls } = fakeFetch({ 'POST /api/auth/login': okLogin() });
    renderApp('/login');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Sign in' }));
    // Each error tied to its field, and focus on the first field to fill.
    expect(screen.getByLabelText('Username')).toHaveAccessibleDescription('Username is required');
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('Password is required');
    expect(screen.getByLabelText('Username')).toHaveFocus();
    await user.type(screen.getByLabelText('Username'), 'alice');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(screen.queryByText('Username is required')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('Password is required');
    expect(screen.getByLabelText('Password')).toHaveFocus();
    expect(calls).toEqual([]);
  });

  it('signs in, stores the session as docs/PRODUCT.md lists it, toasts and lands on /data', async () => {
    let release: () => void = () => {};
    const { calls } = fakeFetch({
      'POST /api/auth/login': () => new Promise((resolve) => (release = () => resolve(okLogin('tok-1')({} as never) as { body: unknown }))),
      'GET /api/system/user/getInfo': okInfo({ userName: 'alice', nickName: 'Alice', deptName: 'EU-Winter', remark: 'VX-42' }),
      ...landingReads,
    });
    renderApp('/login');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Username'), 'alice');
    await user.type(screen.getByLabelText('Password'), 'secret-pass');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('button', { name: 'Logging in...' })).toBeDisabled();
    release();
    expect(await screen.findByText('Login successful')).toBeInTheDocument();
    await waitFor(() => expect(current.location?.pathname).toBe('/data'));
    expect(calls[0]).toMatchObject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { clientid: 'e5cd7e4891bf95d1d19206ce24a7b32e' },
      body: { username: 'alice', password: 'secret-pass', clientId: 'e5cd7e4891bf95d1d19206ce24a7b32e', grantType: 'password' },
    });
    expect(calls[1]).toMatchObject({ method: 'GET', url: '/api/system/user/getInfo', headers: { authorization: 'Bearer tok-1' } });
    expect(localStorage.getItem('accessToken')).toBe('tok-1');
    expect(localStorage.getItem('username')).toBe('alice');
    expect(JSON.parse(localStorage.getItem('userInfo') as string)).toMatchObject({ nickName: 'Alice' });
    expect(localStorage.getItem('userDeptName')).toBe('EU-Winter');
    expect(localStorage.getItem('vehicleNo')).toBe('VX-42');
  });

  it("lands on the app's home after a redirect that would leave the app, and on the path after one that stays", async () => {
    for (const [redirect, landing] of [
      ['/\\evil.example/', '/data'],
      ['//evil.example', '/data'],
      ['/profile', '/profile'],
    ]) {
      fakeFetch({ 'POST /api/auth/login': okLogin(), 'GET /api/system/user/getInfo': okInfo({ userName: 'alice' }), ...landingReads });
      const view = renderApp(`/login?redirect=${encodeURIComponent(redirect!)}`);
      const user = userEvent.setup();
      await user.type(await screen.findByLabelText('Username'), 'alice');
      await user.type(screen.getByLabelText('Password'), 'secret-pass');
      await user.click(screen.getByRole('button', { name: 'Sign in' }));
      // The landing screen is a lazy chunk: its first load gets the 15 s other screen tests give it.
      await waitFor(() => expect(current.location?.pathname, redirect).toBe(landing), { timeout: 15_000 });
      expect(screen.queryByText('Login failed')).toBeNull();
      view.unmount();
      localStorage.clear();
    }
  });

  it("stores '-1' as the project when the user has no department", async () => {
    fakeFetch({ 'POST /api/auth/login': okLogin(), 'GET /api/system/user/getInfo': okInfo({ userName: 'bob' }), ...landingReads });
    renderApp('/login');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Username'), 'bob');
    await user.type(screen.getByLabelText('Password'), 'pw');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(localStorage.getItem('userDeptName')).toBe('-1'));
  });

  it('shows the failure toast with the server reason and keeps what was typed', async () => {
    fakeFetch({ 'POST /api/auth/login': () => ({ status: 401, body: { code: 401, msg: 'Incorrect username or password', data: null } }) });
    renderApp('/login');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Username'), 'alice');
    await user.type(screen.getByLabelText('Password'), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Login failed. Please check your credentials.')).toBeInTheDocument();
    // In the toast, and under the password, tied to it for screen readers, with focus there to try again.
    expect(screen.getAllByText('Incorrect username or password')).toHaveLength(2);
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('Incorrect username or password');
    expect(screen.getByLabelText('Password')).toHaveFocus();
    expect(screen.getByLabelText('Username')).toHaveValue('alice');
    expect(screen.getByLabelText('Password')).toHaveValue('wrong');
    expect(current.location?.pathname).toBe('/login');
    expect(localStorage.getItem('accessToken')).toBeNull();
  });

  it("raises 'Login failed' when no token comes back", async () => {
    fakeFetch({ 'POST /api/auth/login': () => ({ body: { code: 200, msg: 'ok', data: {} } }) });
    renderApp('/login');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Username'), 'alice');
    await user.type(screen.getByLabelText('Password'), 'pw');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Login failed. Please check your credentials.')).toBeInTheDocument();
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('Login failed');
  });

  it('shows the getInfo message when it is not code 200, and stays signed out', async () => {
    fakeFetch({ 'POST /api/auth/login': okLogin(), 'GET /api/system/user/getInfo': () => ({ body: { code: 500, msg: 'User service unavailable' } }) });
    renderApp('/login');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Username'), 'alice');
    await user.type(screen.getByLabelText('Password'), 'pw');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('User service unavailable')).toBeInTheDocument();
    expect(localStorage.getItem('accessToken')).toBeNull();
  });
});
