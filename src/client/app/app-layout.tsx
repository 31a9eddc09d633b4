import { Suspense } from 'react';
import { Outlet } from 'react-router-dom';
import { RequireAuth } from '../auth/require-auth';
import { BottomNav } from '../ui/bottom-nav';
import { Loading } from '../ui/loading';

/** Protected pages: the screen above, the bottom navigation below. */
export function AppLayout() {
  return (
    <RequireAuth>
      <div className="app-shell">
        <main className="app-main">
          <Suspense fallback={<Loading />}>
            <Outlet />
          </Suspense>
        </main>
        <BottomNav />
      </div>
    </RequireAuth>
  );
}
