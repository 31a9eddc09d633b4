import { pagePath } from '../../shared/page-routes';
import { i18n } from '../i18n';
import type { PageShell } from '../../shared/page-shell';
import { Loading } from '../ui/loading';
import { PageHeader } from '../ui/page-header';

// The page shell the server drew into #root (src/shared/page-shell.ts), read before React
// replaces it, so that the app's first render draws the same frame until the page's code is in.

let first: { path: string; shell: PageShell } | undefined;

/** Remembers the title bar the server drew in `root`, for the path the page was opened at. */
export function takeServerShell(root: HTMLElement): void {
  const title = root.querySelector('.page-header-title')?.textContent;
  if (!title) return;
  const back = root.querySelector('a.page-header-back')?.getAttribute('href');
  first = { path: pagePath(window.location.pathname), shell: back ? { title, back } : { title } };
}

/**
 * The server's shell when it was drawn for this path. The server draws it in English (it cannot
 * know the language chosen on this phone): on a screen in another language it is not kept, so the
 * screen shows its loading line in its language rather than an English title (decision 038).
 */
export function serverShellFor(pathname: string): PageShell | undefined {
  if (i18n.language !== 'en') return undefined;
  return first !== undefined && first.path === pagePath(pathname) ? first.shell : undefined;
}

/** A screen's frame while its code loads: its title bar, and 'Loading...' under it. */
export function ShellPage({ shell }: { shell: PageShell }) {
  return (
    <div className="page">
      <PageHeader title={shell.title} back={shell.back} />
      <Loading />
    </div>
  );
}
