// What a signed-in screen shows before its code has run (title bar, 'Loading...', bottom navigation),
// written into index.html so a phone on a slow link paints the frame with the HTML and stylesheet
// (decision 026). The client's first render draws the same (tests/client/page-shell.test.tsx).

import type { Kind, KindRegistry } from './kind-types.js';
import { kindByRoute } from './kinds.js';
import { pageForPath, pagePath, type PageName } from './page-routes.js';

/** The title bar of a screen, as its page draws it. */
export interface PageShell {
  title: string;
  /** Where the back arrow goes; none on the screens of the bottom navigation. */
  back?: string;
}

/** The titles of the screens that are not a record kind's (the pages use these constants too). */
export const PAGE_TITLES = {
  workspace: 'Workspace',
  vehicle: 'Vehicle Status',
  data: 'Data Management',
  profile: 'My Profile',
  outbox: 'Waiting to sync',
  sharepointTest: 'SP测试',
} as const;

/** The languages the shell is drawn in: the app's (src/client/i18n), picked by the request's Accept-Language (docs/decisions/045). */
export type ShellLanguage = 'en' | 'zh';

/** The shell's words in each language: the app's catalogues' (src/client/i18n: pages.*, nav.*, common.back, common.loading). */
const EN_TEXTS = {
  titles: PAGE_TITLES as Record<keyof typeof PAGE_TITLES, string>,
  nav: { '/dashboard': 'Workspace', '/data': 'Data', '/profile': 'Profile' },
  navLabel: 'Main',
  back: 'Back',
  loading: 'Loading...',
  appName: 'Road Test Data',
};
export const SHELL_TEXTS: Record<ShellLanguage, typeof EN_TEXTS> = {
  en: EN_TEXTS,
  zh: {
    titles: { workspace: '工作台', vehicle: '车辆状态', data: '数据管理', profile: '我的', outbox: '等待同步', sharepointTest: 'SP测试' },
    nav: { '/dashboard': '工作台', '/data': '数据', '/profile': '我的' },
    navLabel: '主导航',
    back: '返回',
    loading: '加载中...',
    appName: '路试数据',
  },
};

/** Where the back arrow of those screens goes (the pages use these constants too). */
export const PAGE_BACK = { vehicle: '/dashboard', outbox: '/data', sharepointTest: '/profile' } as const satisfies Partial<Record<PageName, string>>;

/** The bottom navigation's items; a path is under the item whose prefix it starts with. */
export const NAV_ITEMS = [
  { to: '/dashboard', label: 'Workspace', icon: 'pi pi-home' },
  { to: '/data', label: 'Data', icon: 'pi pi-database' },
  { to: '/profile', label: 'Profile', icon: 'pi pi-user' },
] as const;

export function fillText(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (m, key: string) => (key in values ? String(values[key]) : m));
}

/** A kind's title (x-kind.titles) in a language: x-kind.i18n.zh.titles in Chinese, as the app's kindText reads it; else the schema's. */
function kindTitle(kind: Kind, key: 'list' | 'detail' | 'new', language: ShellLanguage): string {
  const english = kind.meta.titles[key];
  if (language === 'en') return english;
  const titles = kind.meta.i18n?.[language]?.['titles'];
  const text = titles !== null && typeof titles === 'object' ? (titles as Record<string, unknown>)[key] : undefined;
  return typeof text === 'string' ? text : english;
}

/** The title bar of the signed-in screen at a path, in a language; undefined for the sign-in page, unknown paths and unknown kinds. */
export function pageShellOf(pathname: string, registry: KindRegistry, language: ShellLanguage = 'en'): PageShell | undefined {
  const path = pagePath(pathname);
  const page = pageForPath(path);
  if (page === 'recordList' || page === 'recordDetail') {
    let parts: string[];
    try {
      parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      return undefined;
    }
    const route = `/${parts.slice(0, 2).join('/')}`;
    const id = parts[2] ?? '';
    const kind = kindByRoute(registry, route);
    if (!kind) return undefined;
    if (page === 'recordList') return { title: kindTitle(kind, 'list', language), back: '/data' };
    const title = id === 'new' || id.startsWith('waiting~') ? kindTitle(kind, 'new', language) : fillText(kindTitle(kind, 'detail', language), { id });
    return { title, back: kind.meta.route };
  }
  if (!(page in PAGE_TITLES)) return undefined;
  const title = SHELL_TEXTS[language].titles[page as keyof typeof PAGE_TITLES];
  const back = (PAGE_BACK as Partial<Record<PageName, string>>)[page];
  return back === undefined ? { title } : { title, back };
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The shell as HTML, element for element what AppLayout's first render (src/client/app/app.tsx) draws, the path's navigation item active. */
export function pageShellHtml(shell: PageShell, pathname: string, language: ShellLanguage = 'en'): string {
  const path = pagePath(pathname);
  const texts = SHELL_TEXTS[language];
  // Attributes in the order React writes them; data-discover is react-router's mark on its links.
  const back =
    shell.back === undefined
      ? ''
      : `<a class="page-header-back" aria-label="${escapeHtml(texts.back)}" href="${escapeHtml(shell.back)}" data-discover="true"><i class="pi pi-arrow-left"></i></a>`;
  const loading =
    `<div class="flex flex-column align-items-center justify-content-center gap-3 p-5" role="status" aria-live="polite">` +
    `<i class="pi pi-spin pi-spinner text-primary" style="font-size: 2rem;" aria-hidden="true"></i><span class="text-600">${escapeHtml(texts.loading)}</span></div>`;
  const nav = NAV_ITEMS.map((item) => {
    const active = path === item.to || path.startsWith(`${item.to}/`);
    return `<a${active ? ' aria-current="page"' : ''} class="bottom-nav-item${active ? ' active' : ''}" href="${item.to}" data-discover="true"><i class="${item.icon}" aria-hidden="true"></i><span>${escapeHtml(texts.nav[item.to])}</span></a>`;
  }).join('');
  return (
    `<div class="app-shell"><main class="app-main"><div class="page"><header class="page-header">${back}<h1 class="page-header-title">${escapeHtml(shell.title)}</h1></header>${loading}</div></main>` +
    `<nav class="bottom-nav" aria-label="${escapeHtml(texts.navLabel)}">${nav}</nav></div>`
  );
}
