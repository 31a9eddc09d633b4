import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAGE_ROUTES, PAGE_SOURCES, pageForPath } from '../../src/shared/page-routes.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the page routes shared by the client router and the server', () => {
  it('find the page of a path as the router does', () => {
    expect(pageForPath('/')).toBe('data');
    expect(pageForPath('/login')).toBe('login');
    expect(pageForPath('/dashboard')).toBe('workspace');
    expect(pageForPath('/data')).toBe('data');
    expect(pageForPath('/data/')).toBe('data');
    expect(pageForPath('/data/issue')).toBe('recordList');
    expect(pageForPath('/data/issue/12')).toBe('recordDetail');
    expect(pageForPath('/data/issue/new')).toBe('recordDetail');
    expect(pageForPath('/outbox')).toBe('outbox');
    expect(pageForPath('/data/issue/12/more')).toBe('notFound');
    expect(pageForPath('/no/such/page')).toBe('notFound');
    expect(pageForPath('/%E0%A4%A')).toBe('notFound');
  });

  it('name page files that exist and that the client router loads as chunks of their own', () => {
    // The router's lazy pages and boot.ts both import them from here.
    const app = fs.readFileSync(path.join(ROOT, 'src/client/app/page-imports.ts'), 'utf8');
    for (const source of Object.values(PAGE_SOURCES)) {
      expect(fs.existsSync(path.join(ROOT, source)), source).toBe(true);
      expect(app, source).toContain(`import('../pages/${path.basename(source, '.tsx')}')`);
    }
    for (const route of PAGE_ROUTES) expect(PAGE_SOURCES[route.page]).toBeDefined();
  });
});
