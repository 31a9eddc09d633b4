import { useEffect } from 'react';

// Saving a schema file reloads the preview (scripts/lib/schemas-preview.ts): the kind and screen
// shown are in the address (#issue/view), and the scroll position is kept here over the reload.

const KEY = 'schemas-preview-scroll';

/** Remembers where the page was scrolled to when Vite reloads it for a changed schema file. */
export function keepScrollOverReloads(): void {
  import.meta.hot?.on('vite:beforeFullReload', () => {
    sessionStorage.setItem(KEY, String(window.scrollY));
  });
}

/** Scrolls back to where the page was before the reload, once it has rendered. */
export function useRestoredScroll(): void {
  useEffect(() => {
    const y = Number(sessionStorage.getItem(KEY));
    sessionStorage.removeItem(KEY);
    if (y > 0) window.scrollTo(0, y);
  }, []);
}
