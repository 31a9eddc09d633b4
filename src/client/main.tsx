// The app, started by boot.ts once the page's shell has been painted.
import { startTransition, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, takeServerShell } from './app/app';
import { applyLanguage, startLanguage } from './i18n';
import { loadPage } from './app/page-imports';
import { pageForPath } from '../shared/page-routes';

const root = document.getElementById('root');
/** English is in the bundle; another language's catalogue comes first, so no screen shows English. */
function whenLanguageReady(render: () => void): void {
  const language = startLanguage();
  if (language === 'en') render();
  else
    applyLanguage(language).then(render, (e: unknown) => {
      console.error(`The ${language} texts could not be loaded; showing English:`, e);
      render();
    });
}

if (root) {
  takeServerShell(root);
  // The page's code before the first render, which then draws it: a page that suspended would
  // appear no sooner than 300 ms later, as React throttles reveals.
  const pageReady = loadPage(pageForPath(window.location.pathname)).catch(() => undefined);
  // As a transition, rendered in slices with the browser free in between; the server's shell stays meanwhile.
  whenLanguageReady(
    () =>
      void pageReady.then(() =>
        startTransition(() => {
          createRoot(root).render(
            <StrictMode>
              <App />
            </StrictMode>,
          );
        }),
      ),
  );
}
