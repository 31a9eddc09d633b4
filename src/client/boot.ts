// The entry of the built app: the browser paints the shell the server drew before the app's code
// is evaluated (decision 026). The stylesheets imported here stay <link>s in index.html.
import 'primereact/resources/themes/lara-light-blue/theme.css';
import 'primeicons/primeicons.css';
import 'primeflex/primeflex.css';
import './app/app.css';

import { pageForPath } from '../shared/page-routes';
import { askEarly } from './api/early-answer';
import { loadPage } from './app/page-imports';

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
  // The page's own code at the same time, not once the app has run (a failure is the router's to report).
  loadPage(pageForPath(window.location.pathname)).catch(() => undefined);
};

// A task queued from a frame callback runs just after the next paint; a background tab gets no frames.
if (document.visibilityState === 'hidden') start();
else requestAnimationFrame(() => setTimeout(start, 0));
