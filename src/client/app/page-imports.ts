import type { PageName } from '../../shared/page-routes';
import type { PageModule, TrackedImport } from '../ui/error-boundary';

// One chunk per page, so the sign-in page loads only what it needs. The router makes its lazy pages
// of these (app.tsx); boot.ts fetches the page a visit opens at with the app, not after it (decision 026).
export const PAGE_IMPORTS = {
  login: () => import('../pages/login-page').then((m) => ({ default: m.LoginPage })),
  workspace: () => import('../pages/workspace-page').then((m) => ({ default: m.WorkspacePage })),
  vehicle: () => import('../pages/vehicle-status-page').then((m) => ({ default: m.VehicleStatusPage })),
  data: () => import('../pages/data-page').then((m) => ({ default: m.DataPage })),
  profile: () => import('../pages/profile-page').then((m) => ({ default: m.ProfilePage })),
  recordList: () => import('../pages/record-list-page').then((m) => ({ default: m.RecordListPage })),
  recordDetail: () => import('../pages/record-detail-page').then((m) => ({ default: m.RecordDetailPage })),
  sharepointTest: () => import('../pages/sharepoint-test-page').then((m) => ({ default: m.SharepointTestPage })),
  outbox: () => import('../pages/outbox-page').then((m) => ({ default: m.OutboxPage })),
  notFound: () => import('../pages/not-found-page').then((m) => ({ default: m.NotFoundPage })),
} satisfies Record<PageName, () => Promise<PageModule>>;

const started = new Map<PageName, TrackedImport>();

/**
 * A page's code, fetched once for boot.ts and the router. Arrived, the promise says so as React
 * marks the promises it reads, so the router draws the page in its first render (retryableLazy);
 * a failed import is forgotten, so that trying again fetches it anew.
 */
export function loadPage(name: PageName): Promise<PageModule> {
  const known = started.get(name);
  if (known) return known;
  const tracked: TrackedImport = PAGE_IMPORTS[name]();
  tracked.status = 'pending';
  tracked.then(
    (module) => {
      tracked.status = 'fulfilled';
      tracked.value = module;
    },
    (reason: unknown) => {
      tracked.status = 'rejected';
      tracked.reason = reason;
      if (started.get(name) === tracked) started.delete(name);
    },
  );
  started.set(name, tracked);
  return tracked;
}
