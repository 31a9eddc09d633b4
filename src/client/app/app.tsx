import { lazy, Suspense, useEffect } from 'react';
import { BrowserRouter, Navigate, Outlet, Route, Routes, useLocation, NavLink } from 'react-router-dom';
import { t, i18n, pageLanguage } from '../i18n';
import { setUnauthorizedHandler } from '../api/client';
import { whenIdle } from '../lib/idle';
import { AuthProvider, RequireAuth, useAuth } from '../auth/auth-context';
import { Loading } from '../ui/loading';
import { isCodeLoadError, retryableLazy, ScreenErrorBoundary, type RetryablePage } from '../ui/error-boundary';
import { ToastProvider, useToast, type ShowToast } from '../ui/toast';
import { HOME_PATH, PAGE_ROUTES, pagePath, type PageName } from '../../shared/page-routes';
import { loadPage, PAGE_IMPORTS } from './page-imports';
import { useTranslation } from 'react-i18next';
import { SP_TEST_USER } from '../api/config';
import { NAV_ITEMS, type PageShell } from '../../shared/page-shell';
import { PageHeader } from '../ui/page-header';

// Every page is its own chunk (page-imports.ts); one that fails fails alone, with a way to try again.
const lazyPage = (name: PageName): RetryablePage => retryableLazy(() => loadPage(name));
const PAGES = Object.fromEntries(Object.keys(PAGE_IMPORTS).map((name) => [name, lazyPage(name as PageName)])) as Record<PageName, RetryablePage>;

// Loaded after sign-in, with IndexedDB: kept out of the sign-in page.
const OutboxChip = lazy(() => import('../outbox/outbox-chip').then((m) => ({ default: m.OutboxChip })));

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

/** A page in its own error boundary, started clean on every path. */
function Screen({ page }: { page: PageName }) {
  const { pathname } = useLocation();
  const { Page, retry } = PAGES[page];
  return (
    // Code that did not load comes with the app loaded again (drafts and the outbox are on the phone).
    <ScreenErrorBoundary key={pathname} onRetry={(error) => (isCodeLoadError(error) ? window.location.reload() : retry())}>
      <Page />
    </ScreenErrorBoundary>
  );
}

/** Changes saved on the phone without coverage go out when the network returns (and at start), while signed in. */
function useOutboxSync(signedIn: boolean, toast: ShowToast): void {
  useEffect(() => {
    if (!signedIn) return;
    let stop: (() => void) | undefined;
    let cancelled = false;
    // After the first screen has painted: IndexedDB and the sync code are not needed to show it.
    const cancelIdle = whenIdle(
      () =>
        void import('../outbox/sync').then(({ startOutboxSync, protectStorage, reachedServer }) => {
          if (cancelled) return;
          protectStorage().then(
            ({ lowSpace }) => {
              if (lowSpace) toast('warn', t('app.lowSpace'), t('app.lowSpaceDetail'));
            },
            (e: unknown) => console.warn('Storage could not be checked:', e),
          );
          stop = startOutboxSync((reached) => toast('success', t('app.allSent'), reachedServer(reached)));
        }),
    );
    return () => {
      cancelled = true;
      cancelIdle();
      stop?.();
    };
  }, [signedIn, toast]);
}

/** The service worker keeps the app on the phone for starts without coverage (built apps only); a new version taking over is said, as the original app does. */
function useServiceWorker(toast: ShowToast): void {
  useEffect(() => {
    if (!('serviceWorker' in navigator)) return;
    const onMessage = (event: MessageEvent): void => {
      if ((event.data as { type?: unknown } | null)?.type === 'update') toast('success', t('app.updated'));
    };
    navigator.serviceWorker.addEventListener('message', onMessage);
    return () => navigator.serviceWorker.removeEventListener('message', onMessage);
  }, [toast]);
  useEffect(() => {
    if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
    let cancelled = false;
    // Once the screen is up: registering fetches and installs every precached asset.
    const cancelIdle = whenIdle(
      () =>
        void import('workbox-window').then(({ Workbox }) => {
          if (cancelled) return;
          const wb = new Workbox('/sw.js');
          wb.addEventListener('activated', (event) => {
            if (event.isUpdate) toast('success', t('app.updated'));
          });
          wb.register().catch((e: unknown) => console.warn('The service worker could not be registered:', e));
          // It answers old bookmarks from the app: the server's earlier routes are kept for it offline (decision 080).
          void import('../api/app-info').then(({ learnEarlierRoutes }) => learnEarlierRoutes());
        }),
      5000,
    );
    return () => {
      cancelled = true;
      cancelIdle();
    };
  }, [toast]);
}

/** Connects the API client's 401 handling, the outbox's sync and the service worker to the app. */
export function AppEffects() {
  // Texts through i18n's t, read when a toast shows: a language switch must not restart these effects.
  const { expire, state } = useAuth();
  const toast = useToast();
  useOutboxSync(state.status === 'signedIn', toast);
  useServiceWorker(toast);
  // Signing out re-renders the protection wrapper, which sends the user to /login with the origin.
  useEffect(() => setUnauthorizedHandler(expire), [expire]);
  return null;
}

const routes = (signedIn: boolean) =>
  PAGE_ROUTES.filter((r) => r.signedIn === signedIn).map((r) => <Route key={r.path} path={r.path} element={<Screen page={r.page} />} />);

export function AppRoutes() {
  return (
    <Suspense fallback={<Loading />}>
      <Routes>
        {routes(false)}
        <Route element={<AppLayout />}>
          <Route path="/" element={<Navigate to={HOME_PATH} replace />} />
          {routes(true)}
        </Route>
        <Route path="*" element={<Screen page="notFound" />} />
      </Routes>
    </Suspense>
  );
}

export function App() {
  return (
    <BrowserRouter>
      <ToastProvider>
        <AuthProvider>
          <AppEffects />
          <AppRoutes />
        </AuthProvider>
      </ToastProvider>
    </BrowserRouter>
  );
}

// The same items the server draws in the page shell before the app has loaded; each shows
// nav.<key> in the language on screen.
const KEYS = { '/dashboard': 'workspace', '/data': 'data', '/profile': 'profile' } as const;
const ITEMS = NAV_ITEMS.map((item) => ({ to: item.to, icon: item.icon, key: KEYS[item.to] }));
const SP_TEST = { to: '/sharepoint-test', key: 'sharepointTest', icon: 'pi pi-folder' } as const;

/** The bottom navigation; 'SP测试' only for the configured test username. */
function BottomNav() {
  const { t } = useTranslation();
  const { state } = useAuth();
  const { pathname } = useLocation();
  const spTest = SP_TEST_USER !== '' && state.status === 'signedIn' && state.username === SP_TEST_USER;
  return (
    <nav className="bottom-nav" aria-label={t('nav.label')}>
      {(spTest ? [...ITEMS, SP_TEST] : ITEMS).map((item) => {
        // Active for its path and everything below it.
        const active = pathname === item.to || pathname.startsWith(`${item.to}/`);
        return (
          <NavLink key={item.to} to={item.to} className={() => `bottom-nav-item${active ? ' active' : ''}`} aria-current={active ? 'page' : undefined}>
            <i className={item.icon} aria-hidden="true" />
            <span>{t(`nav.${item.key}`)}</span>
          </NavLink>
        );
      })}
    </nav>
  );
}

// The page shell the server drew into #root (src/shared/page-shell.ts), read before React
// replaces it, so that the app's first render draws the same frame until the page's code is in.
let first: { path: string; shell: PageShell; language: string } | undefined;

/** Remembers the title bar the server drew in `root`, for the path the page was opened at, and its language. */
export function takeServerShell(root: HTMLElement): void {
  const title = root.querySelector('.page-header-title')?.textContent;
  if (!title) return;
  const back = root.querySelector('a.page-header-back')?.getAttribute('href');
  const language = pageLanguage() ?? 'en';
  first = { path: pagePath(window.location.pathname), shell: back ? { title, back } : { title }, language };
}

/**
 * The server's shell when it was drawn for this path and in the language on screen (the browser's,
 * docs/decisions/045): after the Profile chose the other one, the loading line shows instead (decision 038).
 */
export function serverShellFor(pathname: string): PageShell | undefined {
  if (first === undefined || i18n.language !== first.language) return undefined;
  return first.path === pagePath(pathname) ? first.shell : undefined;
}

function ShellPage({ shell }: { shell: PageShell }) {
  return (
    <div className="page">
      <PageHeader title={shell.title} back={shell.back} />
      <Loading />
    </div>
  );
}
