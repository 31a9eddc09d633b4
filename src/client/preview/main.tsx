// The schema preview's page (npm run schemas:preview, scripts/lib/schemas-preview.ts): never
// imported by the app, so never in its build. The stylesheets are the app's own (as boot.ts has them).
import 'primereact/resources/themes/lara-light-blue/theme.css';
import 'primeicons/primeicons.css';
import 'primeflex/primeflex.css';
import '../app/app.css';
import './preview.css';

import { StrictMode, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import state from 'virtual:schemas-preview';
import { keepScrollOverReloads, ProblemsPage } from './problems';

// The preview has no server: nothing it runs may reach an API (the deployment's or any other).
// Should a component ask, it gets a 503 answer at once.
const SERVER_PATHS = /^\/(api|sharepoint|download)(\/|\?|$)/;
const realFetch = window.fetch.bind(window);
window.fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
  const url = new URL(input instanceof Request ? input.url : String(input), window.location.href);
  if (url.origin === window.location.origin && !SERVER_PATHS.test(url.pathname)) return realFetch(input, init);
  console.warn(`Schema preview: not sent, the preview has no server: ${url.href}`);
  const body = JSON.stringify({ code: 503, msg: 'The schema preview has no server: nothing is loaded or saved' });
  return Promise.resolve(new Response(body, { status: 503, headers: { 'content-type': 'application/json' } }));
};
keepScrollOverReloads();

const element = document.getElementById('root');
if (element) {
  const root = createRoot(element);
  const show = (node: ReactNode): void => root.render(<StrictMode>{node}</StrictMode>);
  if (state.problems.length > 0) {
    // The screens are built from the files: with a file the server would refuse, its problems instead.
    show(<ProblemsPage state={state} />);
  } else {
    import('./preview-app').then(
      ({ PreviewApp }) => show(<PreviewApp dir={state.dir} files={state.files.length} />),
      (e: unknown) =>
        show(<ProblemsPage state={{ ...state, problems: [{ file: 'The preview', path: state.dir, message: `could not be loaded: ${String(e)}` }] }} />),
    );
  }
}
