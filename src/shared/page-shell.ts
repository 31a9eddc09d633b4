// What a signed-in screen shows before its code has run: the title bar (back link and title), a
// 'Loading...' line under it, and the bottom navigation. The server writes it into index.html for
// the page asked for, so a phone on a slow link paints the screen's frame as soon as the HTML and
// the stylesheet arrive, instead of after the entry script, the page chunk and React (decision
// 026). The client's first render draws the same frame (src/client/app/app-layout.tsx), so
// nothing moves when React takes over; tests/client/page-shell.test.tsx holds the two equal.

import type { KindRegistry } from './kind-types.js';
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

/** Where the back arrow of those screens goes (the pages use these constants too). */
export const PAGE_BACK = { vehicle: '/dashboard', outbox: '/data', sharepointTest: '/profile' } as const satisfies Partial<Record<PageName, string>>;

/** The bottom navigation's items; a path is under the item whose prefix it starts with. */
export const NAV_ITEMS = [
  { to: '/dashboard', label: 'Workspace', icon: 'pi pi-home' },
  { to: '/data', label: 'Data', icon: 'pi pi-database' },
  { to: '/profile', label: 'Profile', icon: 'pi pi-user' },
] as const;

/** Replaces {name} in a schema text. */
export function fillText(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (m, key: string) => (key in values ? String(values[key]) : m));
}

/** The title bar of the signed-in screen at a path; undefined for the sign-in page, unknown paths and unknown kinds. */
export function pageShellOf(pathname: string, registry: KindRegistry): PageShell | undefined {
  const path = pagePath(pathname);
  const page = pageForPath(path);
  if (page === 'recordList' || page === 'recordDetail') {
    const parts = path.split('/').filter(Boolean);
    let route: string;
    let id: string;
    try {
      route = `/${parts.slice(0, 2).map(decodeURIComponent).join('/')}`;
      id = decodeURIComponent(parts[2] ?? '');
    } catch {
      return undefined;
    }
    const kind = kindByRoute(registry, route);
    if (!kind) return undefined;
    if (page === 'recordList') return { title: kind.meta.titles.list, back: '/data' };
    const title = id === 'new' || id.startsWith('waiting~') ? kind.meta.titles.new : fillText(kind.meta.titles.detail, { id });
    return { title, back: kind.meta.route };
  }
  if (!(page in PAGE_TITLES)) return undefined;
  const title = PAGE_TITLES[page as keyof typeof PAGE_TITLES];
  const back = (PAGE_BACK as Partial<Record<PageName, string>>)[page];
  return back === undefined ? { title } : { title, back };
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The shell as HTML, element for element what React renders for it (AppLayout's first render):
 * the page's frame inside the app shell, and the bottom navigation with the path's item active.
 */
export function pageShellHtml(shell: PageShell, pathname: string): string {
  const path = pagePath(pathname);
  // Attributes in the order React writes them; data-discover is react-router's mark on its links.
  const back =
    shell.back === undefined
      ? ''
      : `<a class="page-header-back" aria-label="Back" href="${escapeHtml(shell.back)}" data-discover="true"><i class="pi pi-arrow-left"></i></a>`;
  const loading =
    '<div class="flex flex-column align-items-center justify-content-center gap-3 p-5" role="status" aria-live="polite">' +
    '<i class="pi pi-spin pi-spinner text-primary" style="font-size: 2rem;" aria-hidden="true"></i><span class="text-600">Loading...</span></div>';
  const nav = NAV_ITEMS.map((item) => {
    const active = path === item.to || path.startsWith(`${item.to}/`);
    return `<a${active ? ' aria-current="page"' : ''} class="bottom-nav-item${active ? ' active' : ''}" href="${item.to}" data-discover="true"><i class="${item.icon}" aria-hidden="true"></i><span>${escapeHtml(item.label)}</span></a>`;
  }).join('');
  return (
    `<div class="app-shell"><main class="app-main"><div class="page"><header class="page-header">${back}<h1 class="page-header-title">${escapeHtml(shell.title)}</h1></header>${loading}</div></main>` +
    `<nav class="bottom-nav" aria-label="Main">${nav}</nav></div>`
  );
}
