// The app's pages: the client router's paths and each page chunk's source file, from which the server
// sends <link rel="modulepreload"> for the page asked for with index.html (decision 018).

export type PageName = 'login' | 'workspace' | 'vehicle' | 'data' | 'profile' | 'recordList' | 'recordDetail' | 'sharepointTest' | 'outbox' | 'notFound';

/** The source file of the app itself, which the entry (boot.ts) imports after the first paint. */
export const APP_SOURCE = 'src/client/main.tsx';

/** The source file of each page's chunk, as Vite's build manifest names it. */
export const PAGE_SOURCES: Record<PageName, string> = {
  login: 'src/client/pages/login-page.tsx',
  workspace: 'src/client/pages/workspace-page.tsx',
  vehicle: 'src/client/pages/vehicle-status-page.tsx',
  data: 'src/client/pages/data-page.tsx',
  profile: 'src/client/pages/profile-page.tsx',
  recordList: 'src/client/pages/record-list-page.tsx',
  recordDetail: 'src/client/pages/record-detail-page.tsx',
  sharepointTest: 'src/client/pages/sharepoint-test-page.tsx',
  outbox: 'src/client/pages/outbox-page.tsx',
  notFound: 'src/client/pages/not-found-page.tsx',
};

/** signedIn: behind sign-in, inside the app layout (bottom navigation). */
export const PAGE_ROUTES: readonly { path: string; page: PageName; signedIn: boolean }[] = [
  { path: '/login', page: 'login', signedIn: false },
  { path: '/dashboard', page: 'workspace', signedIn: true },
  { path: '/vehicle', page: 'vehicle', signedIn: true },
  { path: '/data', page: 'data', signedIn: true },
  { path: '/profile', page: 'profile', signedIn: true },
  { path: '/data/:slug', page: 'recordList', signedIn: true },
  { path: '/data/:slug/:id', page: 'recordDetail', signedIn: true },
  { path: '/sharepoint-test', page: 'sharepointTest', signedIn: true },
  { path: '/outbox', page: 'outbox', signedIn: true },
];

/** Where '/' goes. */
export const HOME_PATH = '/data';

function matchesPath(pattern: string, pathname: string): boolean {
  const want = pattern.split('/').filter(Boolean);
  const got = pathname.split('/').filter(Boolean);
  if (want.length !== got.length) return false;
  try {
    return want.every((part, i) => part.startsWith(':') || decodeURIComponent(got[i] as string) === part);
  } catch {
    return false; // a malformed escape is no page of ours
  }
}

/** A path as the router reads it: '/' is the home page, and trailing slashes do not count. */
export function pagePath(pathname: string): string {
  return pathname === '/' || pathname === '' ? HOME_PATH : pathname.replace(/\/+$/, '');
}

/** The page a path shows ('/' shows the home page), or notFound, as the client router decides. */
export function pageForPath(pathname: string): PageName {
  const path = pagePath(pathname);
  return PAGE_ROUTES.find((r) => matchesPath(r.path, path))?.page ?? 'notFound';
}

/** Where the server answers its map of earlier app routes to present ones (decisions 059, 080). */
export const EARLIER_ROUTES_PATH = '/earlier-routes.json';
