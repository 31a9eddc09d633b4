import { Navigate, useLocation } from 'react-router-dom';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import * as authApi from '../api/auth';
import { ApiError } from '../api/client';
import { offlineCache } from '../api/offline-cache';
import { forgetPreviews } from '../api/preview-copies';
import { forgetRecords } from '../api/recent-records';
import { storage, type StoredUser } from '../lib/storage';
import { Loading } from '../ui/loading';

type AuthState = { status: 'loading' } | { status: 'signedOut' } | { status: 'signedIn'; username: string; user: StoredUser | null };

/** `signIn` raises ApiError with a message to show; `expire`: the server answered 401, the token is already gone. */
type AuthContextValue = { state: AuthState; signIn(username: string, password: string): Promise<void>; signOut(): Promise<void>; expire(): void };

/** Forgets the user on this device (sign-out, expired sign-in): the next one is shown nothing read under it. */
function forgetUser(): void {
  storage.clearUser();
  void forgetRecords();
  forgetSyncSignIn();
}

/** Forgets the service worker's copy of the sign-in, in IndexedDB, whose code the sign-in page does not carry. */
export function forgetSyncSignIn(): void {
  void import('../outbox/store')
    .then(({ syncAuth }) => syncAuth.clear())
    .catch((e: unknown) => console.warn('The sign-in kept for Background Sync could not be removed:', e));
}

export const AuthContext = createContext<AuthContextValue | null>(null);

function fromStorage(): AuthState {
  return storage.token() ? { status: 'signedIn', username: storage.username() ?? 'User', user: storage.userInfo() } : { status: 'signedOut' };
}

/**
 * Who is signed in. A stored token counts at once (staff often open the app with no coverage, and the server's frame is not
 * replaced by a spinner); the user's info is refreshed in the background, and a 401 from that or any other call signs them out.
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<AuthState>(fromStorage);

  useEffect(() => {
    const initial = fromStorage();
    if (initial.status !== 'signedIn') return;
    authApi.getInfo().then(
      (res) => {
        const before = JSON.stringify([storage.username(), storage.userInfo()]);
        storage.saveUser(res.data.user.userName ?? initial.username, res.data.user);
        // Unchanged (the usual start): no new state, so the screens are not redrawn in one long task while the page loads (docs/PERFORMANCE.md).
        if (JSON.stringify([storage.username(), storage.userInfo()]) !== before) setState(fromStorage());
      },
      (e: unknown) => {
        if (e instanceof ApiError && e.status === 401) setState({ status: 'signedOut' });
      },
    );
  }, []);

  const signIn = useCallback(async (username: string, password: string) => {
    storage.setToken(await authApi.login(username, password));
    try {
      const info = await authApi.getInfo();
      storage.saveUser(username, info.data.user);
    } catch (e) {
      storage.clearUser();
      throw e;
    }
    setState(fromStorage());
  }, []);

  const signOut = useCallback(async () => {
    try {
      await authApi.logout();
    } catch {
      // Signing out on this device must work offline too; the token expires on the server anyway.
    }
    forgetUser();
    // No copy of what this user read is left for the next user of the phone.
    offlineCache.clear();
    await forgetPreviews().catch((e: unknown) => console.warn('The kept previews could not be removed:', e));
    setState({ status: 'signedOut' });
  }, []);

  const expire = useCallback(() => {
    forgetUser();
    setState({ status: 'signedOut' });
  }, []);

  const value = useMemo(() => ({ state, signIn, signOut, expire }), [state, signIn, signOut, expire]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used inside an AuthProvider');
  return value;
}

/** Where a visitor was going, remembered through the sign-in page. */
export type FromState = { from?: string };

/** The protection wrapper: 'Loading...' while auth resolves, /login (remembering the origin) when signed out. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { state } = useAuth();
  const location = useLocation();
  if (state.status === 'loading') return <Loading />;
  if (state.status === 'signedOut')
    return <Navigate to="/login" replace state={{ from: `${location.pathname}${location.search}${location.hash}` } satisfies FromState} />;
  return <>{children}</>;
}
