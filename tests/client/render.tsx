import { StrictMode } from 'react';
import { render } from '@testing-library/react';
import { MemoryRouter, useLocation, type Location } from 'react-router-dom';
import { SWRConfig } from 'swr';
import { AppEffects, AppRoutes } from '../../src/client/app/app';
import { AuthProvider } from '../../src/client/auth/auth-context';
import { ToastProvider } from '../../src/client/ui/toast';

/** The last location the app was at, with its navigation state. */
export const current: { location: Location | null } = { location: null };

function LocationProbe() {
  current.location = useLocation();
  return null;
}

/** Renders the whole app (routes, auth, toasts) at a path, as a person would open it. */
export function renderApp(path: string, state?: unknown, options: { strict?: boolean } = { strict: true }) {
  current.location = null;
  const tree = (
    <SWRConfig value={{ provider: () => new Map(), dedupingInterval: 0 }}>
      <MemoryRouter initialEntries={[{ pathname: path.split('?')[0] ?? '/', search: path.includes('?') ? `?${path.split('?')[1]}` : '', state }]}>
        <ToastProvider>
          <AuthProvider>
            <AppEffects />
            <LocationProbe />
            <AppRoutes />
          </AuthProvider>
        </ToastProvider>
      </MemoryRouter>
    </SWRConfig>
  );
  // StrictMode mounts twice in development, as `npx vite` runs the app.
  return render(options.strict ? <StrictMode>{tree}</StrictMode> : tree);
}

/** Stores a session as a signed-in phone has it. */
export function signedIn(username = 'alice', user: Record<string, unknown> = { userName: 'alice', deptName: 'P1', remark: 'V1' }): void {
  localStorage.setItem('accessToken', 'token-abc');
  localStorage.setItem('username', username);
  localStorage.setItem('userInfo', JSON.stringify(user));
  localStorage.setItem('userDeptName', String(user['deptName'] ?? '-1'));
  localStorage.setItem('vehicleNo', String(user['remark'] ?? ''));
}
