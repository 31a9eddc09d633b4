import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { checkForUpdates, resetPhone, type UpdateEnvironment } from '../../src/client/updates/update-check';
import { fakeFetch, okInfo } from './fake-server';
import { current, renderApp, signedIn } from './render';

describe('Profile', () => {
  it('shows the user, the department, the settings rows and the version from /manifest.json', async () => {
    signedIn('alice', { userName: 'alice', deptName: 'EU-Winter', remark: 'VX-42' });
    fakeFetch({
      'GET /api/system/user/getInfo': okInfo({ userName: 'alice', deptName: 'EU-Winter', remark: 'VX-42' }),
      'GET /manifest.json': () => ({ body: { version: '1.4.2' } }),
    });
    renderApp('/profile');
    expect(await screen.findByRole('heading', { name: 'My Profile' })).toBeInTheDocument();
    expect(screen.getByTestId('profile-username')).toHaveTextContent('alice');
    expect(screen.getByTestId('profile-dept')).toHaveTextContent('EU-Winter');
    for (const row of ['Settings', 'App Settings', 'Export Data', 'Help & Support', 'App Version']) expect(screen.getByText(row)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('app-version')).toHaveTextContent('v1.4.2'));
    expect(screen.getByRole('button', { name: 'Check for Updates' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Test' })).toBeEnabled();
  });

  it('shows unknown (未知 on a Chinese screen) and writes a console message when the version cannot be read', async () => {
    signedIn();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo(), 'GET /manifest.json': () => ({ status: 500, body: {} }) });
    renderApp('/profile');
    // The specification quotes the Chinese word; an English screen says it in English.
    await waitFor(() => expect(screen.getByTestId('app-version')).toHaveTextContent('unknown'));
    expect(warn).toHaveBeenCalledWith('Could not read the app version from /manifest.json:', expect.any(Error));
  });

  it("shows 'User' when no username is stored", async () => {
    localStorage.setItem('accessToken', 'tok');
    fakeFetch({ 'GET /api/system/user/getInfo': () => Promise.reject(new TypeError('offline')), 'GET /manifest.json': () => ({ body: { version: '1.0.0' } }) });
    renderApp('/profile');
    expect(await screen.findByTestId('profile-username')).toHaveTextContent('User');
  });

  it('signs out through the dialog: Cancel closes it, Sign Out revokes, clears, toasts and goes to /login', async () => {
    signedIn();
    localStorage.setItem('driveSession', JSON.stringify({ startedAt: '2026-11-21 08:00:00' }));
    const { calls } = fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'GET /manifest.json': () => ({ body: { version: '1.0.0' } }),
      'POST /api/auth/logout': () => ({ body: { code: 200, msg: '退出成功', data: null } }),
    });
    renderApp('/profile');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Sign Out' }));
    expect(await screen.findByText('Are you sure you want to sign out of your account?')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByText('Are you sure you want to sign out of your account?')).not.toBeInTheDocument());
    expect(calls.some((c) => c.url === '/api/auth/logout')).toBe(false);

    await user.click(screen.getByRole('button', { name: 'Sign Out' }));
    const dialog = await screen.findByRole('dialog');
    // A drive is running: the dialog asks what to do with it.
    expect(within(dialog).getByTestId('sign-out-sessions')).toHaveTextContent('A drive session (since 08:00) is still running');
    await user.click(within(dialog).getByRole('button', { name: 'Keep it and sign out' }));
    expect(await screen.findByText('Logged out successfully')).toBeInTheDocument();
    await waitFor(() => expect(current.location?.pathname).toBe('/login'));
    expect(calls.find((c) => c.url === '/api/auth/logout')?.headers['authorization']).toBe('Bearer token-abc');
    for (const key of ['accessToken', 'username', 'userInfo', 'userDeptName', 'vehicleNo']) expect(localStorage.getItem(key), key).toBeNull();
    expect(localStorage.getItem('driveSession')).not.toBeNull(); // a running drive survives a sign-out
  });

  it("keeps a user's running session from the next user of the phone", async () => {
    signedIn('bob', { userName: 'bob', deptName: 'P1', remark: 'V2' });
    localStorage.setItem('driveSession', JSON.stringify({ startedAt: '2026-11-21 08:00:00', owner: 'alice' }));
    fakeFetch({
      'GET /api/system/user/getInfo': okInfo({ userName: 'bob', deptName: 'P1', remark: 'V2' }),
      'GET /manifest.json': () => ({ body: { version: '1.0.0' } }),
      'POST /api/auth/logout': () => ({ body: { code: 200 } }),
    });
    renderApp('/profile');
    const user = userEvent.setup();
    // Alice's drive is not Bob's: signing out asks nothing about it, and it stays for her.
    await user.click(await screen.findByRole('button', { name: 'Sign Out' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).queryByTestId('sign-out-sessions')).toBeNull();
    await user.click(within(dialog).getByRole('button', { name: 'Sign Out' }));
    await waitFor(() => expect(current.location?.pathname).toBe('/login'));
    expect(JSON.parse(localStorage.getItem('driveSession') ?? '{}')).toMatchObject({ owner: 'alice' });
  });

  it('ends a running session when its user chooses so at sign-out', async () => {
    signedIn();
    localStorage.setItem('driveSession', JSON.stringify({ startedAt: '2026-11-21 08:00:00', owner: 'alice' }));
    fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'GET /manifest.json': () => ({ body: { version: '1.0.0' } }),
      'POST /api/auth/logout': () => ({ body: { code: 200 } }),
    });
    renderApp('/profile');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Sign Out' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'End it and sign out' }));
    await waitFor(() => expect(current.location?.pathname).toBe('/login'));
    expect(localStorage.getItem('driveSession')).toBeNull();
  });

  it('signs out on this phone even when the server cannot be reached', async () => {
    signedIn();
    fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'GET /manifest.json': () => ({ body: { version: '1.0.0' } }),
      'POST /api/auth/logout': () => Promise.reject(new TypeError('offline')),
    });
    renderApp('/profile');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Sign Out' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Sign Out' }));
    await waitFor(() => expect(current.location?.pathname).toBe('/login'));
    expect(localStorage.getItem('accessToken')).toBeNull();
  });
});

describe('Reset this phone', () => {
  it('asks first, counting what would be lost, and Cancel keeps everything', async () => {
    signedIn();
    localStorage.setItem('draft.issue.5', JSON.stringify({ savedAt: Date.now(), values: { city: 'Leeds' } }));
    localStorage.setItem('driveSession', JSON.stringify({ startedAt: '2026-11-22 08:00:00' }));
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo(), 'GET /manifest.json': () => ({ body: { version: '1.0.0' } }) });
    renderApp('/profile');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Reset this phone' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByTestId('reset-losses')).toHaveTextContent('1 unsaved edit');
    expect(within(dialog).getByTestId('reset-losses')).toHaveTextContent('a running drive session');
    expect(within(dialog).getByTestId('reset-losses')).toHaveTextContent('your sign-in');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(localStorage.getItem('draft.issue.5')).not.toBeNull();
    expect(localStorage.getItem('driveSession')).not.toBeNull();
  });
});

describe('Check for Updates', () => {
  it('unregisters workers, deletes caches and reloads with a timestamp, keeping what is stored on the phone', async () => {
    const steps: string[] = [];
    const env: UpdateEnvironment = {
      clearStorage: () => steps.push('clear storage'),
      navigate: (url) => steps.push(`navigate ${url}`),
      serviceWorkerRegistrations: async () => [
        { unregister: async () => (steps.push('unregister 1'), true) },
        { unregister: async () => (steps.push('unregister 2'), true) },
      ],
      cacheKeys: async () => ['a', 'b'],
      deleteCache: async (key) => (steps.push(`delete cache ${key}`), true),
      reload: () => steps.push('reload'),
      now: () => 1700000000000,
      currentPath: () => '/profile',
    };
    await checkForUpdates(env);
    // Storage is kept (docs/decisions/011): sign-in, drafts and running sessions survive an update.
    expect(steps).toEqual(['unregister 1', 'unregister 2', 'delete cache a', 'delete cache b', 'navigate /profile?t=1700000000000']);
    await resetPhone(env);
    expect(steps.slice(5)).toEqual(['clear storage', 'unregister 1', 'unregister 2', 'delete cache a', 'delete cache b', 'navigate /login']);
  });
});
