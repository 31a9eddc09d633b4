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
import { refuseServerCalls } from './no-server';
import { ProblemsPage } from './problems';
import { keepScrollOverReloads } from './reload';

refuseServerCalls();
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
