import { lazy, Suspense } from 'react';
import { Outlet, useLocation } from 'react-router-dom';
import { RequireAuth } from '../auth/auth-context';
import { BottomNav } from './bottom-nav';
import { Loading } from '../ui/loading';
import { serverShellFor, ShellPage } from './server-shell';

// Loaded after sign-in, with IndexedDB: kept out of the sign-in page.
const OutboxChip = lazy(() => import('../outbox/outbox-chip').then((m) => ({ default: m.OutboxChip })));

/** Protected pages: the screen above, the bottom navigation below. */
export function AppLayout() {
  const { pathname } = useLocation();
  // Opened at this path: the frame the server already drew stays while the page's code loads.
  const shell = serverShellFor(pathname);
  return (
    <RequireAuth>
      <div className="app-shell">
        <main className="app-main">
          <Suspense fallback={shell ? <ShellPage shell={shell} /> : <Loading />}>
            <Outlet />
          </Suspense>
        </main>
        <Suspense fallback={null}>
          <OutboxChip />
        </Suspense>
        <BottomNav />
      </div>
    </RequireAuth>
  );
}
