import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/server.js';

// The import boundaries of docs/ARCHITECTURE.md are held by ESLint (eslint.config.js, run by
// `npm test` as `npm run lint` over the whole repository). These cases prove the rules bite: each
// snippet, linted as if it were a file at that place, must be refused for the reason given.
const eslint = new ESLint({ cwd: ROOT });

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('import boundaries (ESLint)', () => {
  it.each([
    ['src/shared/x.ts', "import { registry } from '../client/engine/registry';", 'shared imports the client'],
    ['src/shared/x.ts', "import { buildApp } from '../server/app.js';", 'shared imports the server'],
    ['src/client/pages/x.ts', "import { buildApp } from '../../server/app.js';", 'the client imports the server'],
    ['src/server/x.ts', "import { registry } from '../client/engine/registry';", 'the server imports the client'],
    ['src/client/ui/x.tsx', "import { useAuth } from '../auth/auth-context';", 'ui imports a feature'],
    ['src/client/ui/x.tsx', "import { WorkspacePage } from '../pages/workspace-page';", 'ui imports a page'],
    ['src/client/lib/x.ts', "import { apiRequest } from '../api/client';", 'lib imports the API core'],
    ['src/client/api/x.ts', "import { registry } from '../engine/registry';", 'the API core imports a feature'],
    ['src/client/engine/x.ts', "import { DataPage } from '../pages/data-page';", 'a feature imports a page'],
    ['src/server/users/x.ts', "import { authenticate } from '../auth/authenticate.js';", 'users imports auth'],
    ['src/server/http/x.ts', "import { LINK_PARAM } from '../auth/signed-links.js';", 'http imports auth'],
    ['src/server/db/x.ts', "import { buildApp } from '../app.js';", 'the database plumbing imports the wiring'],
    ['src/server/auth/x.ts', "import { statsRoutes } from '../stats/routes.js';", 'auth imports a service'],
  ])('refuses %s: %s (%s)', async (file, code) => {
    expect(await problems(file, `${code}\nexport const used = [${/import \{ (\w+)/.exec(code)?.[1]}];\n`)).toEqual([
      expect.stringMatching(/^boundaries\/dependencies: /),
    ]);
  });

  it.each([
    ['src/client/pages/x.ts', "import { registry } from '../engine/registry';"],
    ['src/client/engine/x.ts', "import { apiRequest } from '../api/client';"],
    ['src/client/api/x.ts', "import { storage } from '../lib/storage';"],
    ['src/client/ui/x.ts', "import { storage } from '../lib/storage';"],
    ['src/server/x.ts', "import { buildRegistry } from '../shared/kinds.js';"],
    ['src/server/db/x.ts', "import { ConfigError } from '../config.js';"],
    ['src/server/users/x.ts', "import { openDb } from '../db/database.js';"],
    ['src/server/auth/x.ts', "import { hashPassword } from '../users/password-hashing.js';"],
    ['src/server/files/x.ts', "import { currentUser } from '../auth/authenticate.js';"],
  ])('allows %s: %s', async (file, code) => {
    expect(await problems(file, `${code}\nexport const used = [${/import \{ (\w+)/.exec(code)?.[1]}];\n`)).toEqual([]);
  });

  it.each([
    ['src/client/files/x.ts', 'export const read = (url: string) => fetch(url);\n', "'fetch'"],
    ['src/client/outbox/x.ts', 'export const request = new XMLHttpRequest();\n', "'XMLHttpRequest'"],
  ])('keeps requests in src/client/api/: refuses %s', async (file, code, name) => {
    expect(await problems(file, code)).toEqual([`no-restricted-globals: Unexpected use of ${name}. Requests are made in src/client/api/ (decision 076).`]);
  });

  it('allows fetch in src/client/api/ and in the service worker', async () => {
    for (const file of ['src/client/api/x.ts', 'src/client/sw.ts'])
      expect(await problems(file, 'export const read = (url: string) => fetch(url);\n')).toEqual([]);
  });

  it('keeps the component library out of the sign-in page and the entry: no primereact root import', async () => {
    expect(await problems('src/client/pages/x.tsx', "import { Button } from 'primereact';\nexport const used = [Button];\n")).toEqual([
      "no-restricted-imports: 'primereact' import is restricted from being used. Import from a subpath such as 'primereact/button'.",
    ]);
  });
});
