import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

/** A stand-in for a built client: index.html and one hashed asset. */
function builtClient(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-client-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.mkdirSync(path.join(dir, '.vite'));
  fs.writeFileSync(path.join(dir, '.vite', 'manifest.json'), '{}');
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Road Test Data</title><div id="root"></div>');
  fs.writeFileSync(path.join(dir, 'assets', 'index-Ab12Cd34.js'), `console.log(${JSON.stringify('x'.repeat(5000))});`);
  fs.writeFileSync(path.join(dir, 'assets', 'other-Ef56Gh78.js'), `console.log(${JSON.stringify('y'.repeat(5000))});`);
  // A precompressed twin with different text, to tell it from on-the-fly compression.
  fs.writeFileSync(path.join(dir, 'assets', 'other-Ef56Gh78.js.br'), zlib.brotliCompressSync('console.log("precompressed")'));
  return dir;
}

describe.each([
  ['a built client', builtClient],
  ['no client build', () => fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-empty-'))],
])('what the server answers outside the API, with %s', (_label, clientDir) => {
  const s = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: clientDir() }));

  it('serves an HTML page at / and for client routes, never cached', async () => {
    for (const p of ['/', '/data', '/data/issue/12', '/login', '/no/such/page']) {
      const res = await fetch(s.url + p, { headers: { accept: 'text/html' } });
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('Road Test Data');
    }
    const head = await fetch(s.url + '/', { method: 'HEAD', headers: { accept: 'text/html' } });
    expect(head.status).toBe(200);
  });

  it('serves the page to a request that does not ask for HTML (curl), and a JSON 404 for a missing file', async () => {
    for (const p of ['/', '/data/issue/12']) {
      const res = await fetch(s.url + p, { headers: { accept: '*/*' } });
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
    }
    const missing = await s.request('GET', '/assets/gone-Zz99.js', { headers: { accept: '*/*' } });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 404 });
  });

  it('answers unknown API paths with a JSON 404 in the envelope', async () => {
    for (const p of ['/api/nope', '/api/vtp/unknownKind/list', '/sharepoint/x', '/download/y']) {
      const res = await s.request('GET', p, { headers: { accept: 'text/html' } });
      expect(res.status, p).toBe(404);
      expect(res.body).toEqual({ code: 404, msg: `No such endpoint: GET ${p}`, data: null });
    }
  });
});

describe('built assets', () => {
  const s = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: builtClient() }));

  it('are sent compressed and cached for a year when hashed', async () => {
    const res = await fetch(`${s.url}/assets/index-Ab12Cd34.js`, { headers: { 'accept-encoding': 'br' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(await res.text()).toContain('console.log');
  });

  it('are sent from their precompressed twin when the build made one', async () => {
    const res = await fetch(`${s.url}/assets/other-Ef56Gh78.js`, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(await res.text()).toBe('console.log("precompressed")');
  });

  it('keeps the build manifest and other dotfiles private', async () => {
    const res = await fetch(`${s.url}/.vite/manifest.json`);
    expect(res.status).toBe(404);
  });
});

/** A built client whose manifest has an entry and lazy pages with imports of their own. */
function builtWithPages(): string {
  const dir = builtClient();
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><html><head><title>Road Test Data</title><script type="module" crossorigin src="/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>',
  );
  const manifest = {
    'index.html': {
      file: 'assets/index-Ab12Cd34.js',
      isEntry: true,
      imports: ['_runtime.js'],
      dynamicImports: ['src/client/main.tsx', 'src/client/pages/login-page.tsx', 'src/client/pages/record-detail-page.tsx'],
    },
    'src/client/main.tsx': { file: 'assets/main-M1.js', isDynamicEntry: true, imports: ['_runtime.js', '_react.js', 'index.html'] },
    '_react.js': { file: 'assets/react-X1.js' },
    '_runtime.js': { file: 'assets/runtime-R1.js' },
    '_button.js': { file: 'assets/button-B1.js', imports: ['_runtime.js'] },
    '_card.js': { file: 'assets/card-C1.js' },
    'src/client/pages/login-page.tsx': { file: 'assets/login-page-L1.js', isDynamicEntry: true, imports: ['_runtime.js', '_button.js'] },
    'src/client/pages/record-detail-page.tsx': {
      file: 'assets/record-detail-page-D1.js',
      isDynamicEntry: true,
      imports: ['_button.js', '_card.js'],
      dynamicImports: ['src/client/engine/record-form.tsx'],
    },
    'src/client/engine/record-form.tsx': { file: 'assets/record-form-F1.js', isDynamicEntry: true },
  };
  fs.writeFileSync(path.join(dir, '.vite', 'manifest.json'), JSON.stringify(manifest));
  return dir;
}

describe('the page HTML', () => {
  const s = useTestServer({ name: 'sqlite' }, () => ({ CLIENT_DIR: builtWithPages() }));

  const preloads = (html: string): string[] => [...html.matchAll(/<link rel="modulepreload" crossorigin href="([^"]+)">/g)].map((m) => m[1] as string);

  it('preloads the app and the chunks of a page without a shell, and none the entry loads itself or that come later', async () => {
    const login = await (await fetch(`${s.url}/login?next=%2Fdata`, { headers: { accept: 'text/html' } })).text();
    expect(preloads(login).sort()).toEqual(['/assets/button-B1.js', '/assets/login-page-L1.js', '/assets/main-M1.js', '/assets/react-X1.js']);
    expect(login).toContain('<script type="module" crossorigin src="/assets/index-Ab12Cd34.js"></script>');
    expect(login).toContain('<div id="root"></div>');
    // A page with no chunk in the manifest gets the app's.
    expect(preloads(await (await fetch(`${s.url}/no/such/page`, { headers: { accept: 'text/html' } })).text()).sort()).toEqual([
      '/assets/main-M1.js',
      '/assets/react-X1.js',
    ]);
  });

  it("draws a signed-in screen's shell (title bar, bottom navigation) into the page, with no preloads to compete with the stylesheet (decision 026)", async () => {
    const detail = await (await fetch(`${s.url}/data/issue/12`, { headers: { accept: 'text/html' } })).text();
    expect(preloads(detail)).toEqual([]);
    expect(detail).toContain('<script type="module" crossorigin src="/assets/index-Ab12Cd34.js"></script>');
    expect(detail).toContain(
      '<a class="page-header-back" aria-label="Back" href="/data/issue" data-discover="true"><i class="pi pi-arrow-left"></i></a><h1 class="page-header-title">Issue Record: 12</h1>',
    );
    expect(detail).toMatch(/<a aria-current="page" class="bottom-nav-item active" href="\/data" data-discover="true">/);
    const data = await (await fetch(`${s.url}/data`, { headers: { accept: 'text/html' } })).text();
    expect(data).toContain('<h1 class="page-header-title">Data Management</h1>');
    expect(data).not.toContain('page-header-back');
    // What comes from the address is text, never markup.
    const forged = await (await fetch(`${s.url}/data/issue/%3Cscript%3Ealert(1)%3C%2Fscript%3E`, { headers: { accept: 'text/html' } })).text();
    expect(forged).not.toContain('<script>alert(1)');
    expect(forged).toContain('Issue Record: &#60;script&#62;alert(1)&#60;/script&#62;');
    // Nor a pattern of String.replace: "$'" stays two characters.
    const dollar = await (await fetch(`${s.url}/data/issue/a$'b$&c`, { headers: { accept: 'text/html' } })).text();
    expect(dollar).toContain(`<h1 class="page-header-title">Issue Record: a$&#39;b$&#38;c</h1>`);
    expect(dollar.match(/<\/html>/g)).toHaveLength(1);
    // An unknown kind gets no shell.
    expect(await (await fetch(`${s.url}/data/nope`, { headers: { accept: 'text/html' } })).text()).toContain('<div id="root"></div>');
  });

  it('is never cached without asking, and answers 304 to the ETag of its page', async () => {
    for (const [page, other] of [
      ['/data/issue/12', '/data/issue/13'],
      ['/login', '/data'],
    ] as const) {
      const first = await fetch(`${s.url}${page}`, { headers: { accept: 'text/html' } });
      const etag = first.headers.get('etag');
      expect(first.headers.get('cache-control')).toBe('no-cache');
      expect(etag).toMatch(/^"[\w-]+"$/);
      const again = await fetch(`${s.url}${page}`, { headers: { accept: 'text/html', 'if-none-match': etag as string } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
      const changed = await fetch(`${s.url}${other}`, { headers: { accept: 'text/html', 'if-none-match': etag as string } });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
    }
  });
});

describe('/manifest.json', () => {
  const s = useTestServer({ name: 'sqlite' });

  it('is a web app manifest carrying the package version', async () => {
    const res = await fetch(`${s.url}/manifest.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/manifest+json');
    const pkg = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8'));
    expect(await res.json()).toMatchObject({
      name: 'Road Test Data',
      version: pkg.version,
      start_url: '/',
      display: 'standalone',
      icons: [expect.objectContaining({ src: '/icon.svg' })],
    });
  });
});
