// ESLint for the whole repository (`npm run lint`, part of `npm test`): typescript-eslint's
// recommended rules with type information, React's hook rules, and the import boundaries of
// DESIGN.md and STYLE.md held by eslint-plugin-boundaries. No warnings: a rule is on or off.
import path from 'node:path';
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The parts of src/ and what each may import. src/shared imports neither side; the client and the
 * server never import each other; the worker talks to the server over HTTP only. Inside the
 * client, lower layers never import higher ones:
 *   lib (storage, small helpers) < api (the HTTP core) < ui (presentational pieces, no feature)
 *   < features (auth, engine, kinds, files, outbox, sessions…) < pages < app (shell, routes).
 */
const elements = [
  { type: 'shared', pattern: 'src/shared' },
  // The server in layers, each importing only those below it: config.ts < db (plumbing) and http
  // (envelope, errors, headers) < users < auth < the rest: the services (records, files, analysis…)
  // and their wiring (app.ts, plugins/).
  { type: 'server-db', pattern: 'src/server/db' },
  { type: 'server-http', pattern: 'src/server/http' },
  { type: 'server-users', pattern: 'src/server/users' },
  { type: 'server-auth', pattern: 'src/server/auth' },
  { type: 'server', pattern: 'src/server' },
  { type: 'worker', pattern: 'src/worker' },
  { type: 'client-lib', pattern: 'src/client/lib' },
  // The texts of every screen in each language (decision 038): any client layer may ask for them.
  { type: 'client-i18n', pattern: 'src/client/i18n' },
  { type: 'client-api', pattern: 'src/client/api' },
  { type: 'client-ui', pattern: 'src/client/ui' },
  { type: 'client-pages', pattern: 'src/client/pages' },
  { type: 'client-app', pattern: 'src/client/app' },
  // The schema preview (npm run schemas:preview): draws the app's screens, and nothing imports it.
  { type: 'client-preview', pattern: 'src/client/preview' },
  { type: 'client-feature', pattern: 'src/client/*', capture: ['feature'] },
  { type: 'client-entry', pattern: 'src/client/*.{ts,tsx}', partialMatch: false },
];

const may = (from, to) => ({ from: { element: { type: from } }, allow: { to: { element: { types: { anyOf: to } } } } });
const CLIENT_BASE = ['shared', 'client-lib', 'client-i18n'];
const SERVER_LAYERS = ['server-db', 'server-http', 'server-users', 'server-auth'];
/** A server layer imports itself, the layers named, shared code and the settings (server/config.ts), nothing above. */
const mayServer = (from, below) => ({
  from: { element: { type: from } },
  allow: { to: { element: [{ types: { anyOf: ['shared', from, ...below] } }, { type: 'server', fileInternalPath: 'config.ts' }] } },
});

export default tseslint.config(
  { ignores: ['dist/**', 'test-results/**', 'node_modules/**', 'bench-bundle/**', 'src/shared/generated/**', 'coverage/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // CommonJS modules (the ESLint resolver must be one) use require.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests read JSON answers of any shape; typing each one would test the types, not the app.
    files: ['tests/**/*.{ts,tsx}'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/client/**/*.{ts,tsx}', 'tests/client/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    // Every request of the page is made in src/client/api/ (decision 076); the service worker and
    // the web workers are global scopes of their own, with their own fetch.
    files: ['src/client/**/*.{ts,tsx}'],
    ignores: ['src/client/api/**', 'src/client/sw.ts', 'src/client/**/*.worker.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'Requests are made in src/client/api/ (decision 076).' },
        { name: 'XMLHttpRequest', message: 'Requests are made in src/client/api/ (decision 076).' },
      ],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': elements,
      'boundaries/include': ['src/**/*'],
      // TypeScript's resolution of relative imports, so that server imports written as './x.js' find x.ts.
      'import/resolver': { [path.resolve(import.meta.dirname, 'scripts/lib/eslint-resolver.cjs')]: {} },
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          policies: [
            may('shared', ['shared']),
            mayServer('server-db', []),
            mayServer('server-http', []),
            mayServer('server-users', ['server-db']),
            mayServer('server-auth', ['server-db', 'server-http', 'server-users']),
            may('server', ['shared', 'server', ...SERVER_LAYERS]),
            may('worker', ['worker', 'shared']),
            may('client-lib', CLIENT_BASE),
            may('client-i18n', CLIENT_BASE),
            may('client-api', [...CLIENT_BASE, 'client-api']),
            may('client-ui', [...CLIENT_BASE, 'client-ui']),
            may('client-feature', [...CLIENT_BASE, 'client-api', 'client-ui', 'client-feature']),
            may('client-pages', [...CLIENT_BASE, 'client-api', 'client-ui', 'client-feature', 'client-pages']),
            may('client-app', [...CLIENT_BASE, 'client-api', 'client-ui', 'client-feature', 'client-pages', 'client-app']),
            may('client-entry', [...CLIENT_BASE, 'client-app']),
            may('client-preview', [...CLIENT_BASE, 'client-api', 'client-ui', 'client-feature', 'client-app', 'client-preview']),
          ],
        },
      ],
      // The component library only from its subpaths: the root import drags all of it into the entry.
      'no-restricted-imports': ['error', { paths: [{ name: 'primereact', message: "Import from a subpath such as 'primereact/button'." }] }],
    },
  },
);
