import type { ComponentType } from 'react';
import type { PageName } from '../../shared/page-routes';

// Where each page's code comes from: one chunk per page, so the sign-in page loads only what it
// needs. The router makes its lazy pages of these (app.tsx), and boot.ts starts fetching the page
// a visit opens at together with the app, instead of after the app has run (decision 026).
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
} satisfies Record<PageName, () => Promise<{ default: ComponentType }>>;
