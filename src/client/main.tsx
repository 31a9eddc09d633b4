// The app, started by boot.ts once the page's shell has been painted.
import { startTransition, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { takeServerShell } from './app/server-shell';

const root = document.getElementById('root');
if (root) {
  takeServerShell(root);
  // As a transition, React renders the app in slices of a few milliseconds with the browser free
  // in between, instead of one long task; the shell the server drew stays until it is done.
  startTransition(() => {
    createRoot(root).render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
  });
}
