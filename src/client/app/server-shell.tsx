import { pagePath } from '../../shared/page-routes';
import { i18n, pageLanguage } from '../i18n';
import type { PageShell } from '../../shared/page-shell';
import { Loading } from '../ui/loading';
import { PageHeader } from '../ui/page-header';

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

/** A screen's frame while its code loads: its title bar, and 'Loading...' under it. */
export function ShellPage({ shell }: { shell: PageShell }) {
  return (
    <div className="page">
      <PageHeader title={shell.title} back={shell.back} />
      <Loading />
    </div>
  );
}
