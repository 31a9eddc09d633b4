// The entry of the built app. The server has drawn the page's shell (title bar and navigation,
// src/shared/page-shell.ts) into the HTML: let the browser paint it before the app's code is
// evaluated, then start the app (decision 026). The stylesheets are imported here so they stay
// <link>s in index.html, loaded with the page rather than by script.
import 'primereact/resources/themes/lara-light-blue/theme.css';
import 'primeicons/primeicons.css';
import 'primeflex/primeflex.css';
import './app/app.css';

import { pageForPath } from '../shared/page-routes';
import { askEarly, loadPage } from './app/page-imports';

// A record screen's data is asked for now, with the code, not after it (decision 078).
askEarly(window.location.pathname);

/** Said in the shell's 'Loading...' line when the app's code cannot be fetched (no coverage on a first visit). */
export const LOAD_FAILED = 'The app could not be loaded. Check your connection and reload the page.';

const start = (): void => {
  import('./main').catch((e: unknown) => {
    console.error('The app could not be loaded:', e);
    const status = document.querySelector('#root [role="status"] span');
    if (status) status.textContent = LOAD_FAILED;
  });
  // The page's own code at the same time: the router would ask for it only once the app has run
  // (a failure here is the router's to report when it asks again).
  loadPage(pageForPath(window.location.pathname)).catch(() => undefined);
};

// A frame callback runs just before the next paint; a task queued from it runs just after. A
// page opened in a background tab paints nothing (and gets no frames), so it starts at once.
if (document.visibilityState === 'hidden') start();
else requestAnimationFrame(() => setTimeout(start, 0));
