import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appPath } from '../../src/client/auth/app-path';

const ORIGIN = 'https://rtd.example';

describe('where a sign-in redirect may lead', () => {
  it('keeps paths of the app as the browser resolves them', () => {
    expect(appPath('/data/issue/12?tab=files#top', ORIGIN)).toBe('/data/issue/12?tab=files#top');
    expect(appPath('/data/../files', ORIGIN)).toBe('/files');
    expect(appPath('/profile', ORIGIN)).toBe('/profile');
  });

  it('sends anything that would leave the app, or return to sign-in, home', () => {
    for (const target of [
      '/\\evil.example/',
      '//evil.example',
      '/\t/evil.example',
      '/\n/evil.example',
      '\\\\evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      '/login',
      '/login?redirect=/data',
      '',
      null,
      undefined,
      42,
      '/.//evil.example',
    ])
      expect(appPath(target, ORIGIN), JSON.stringify(target)).toBe('/');
  });

  it('always answers a path of this app that the router cannot read as another host', () => {
    const alphabet = fc.constantFrom(
      '/',
      '\\',
      '.',
      ':',
      '@',
      '%',
      '#',
      '?',
      '\t',
      '\n',
      ' ',
      'e',
      'x',
      'login',
      'evil.example',
      '%2f',
      '%5c',
      'http:',
      'https:',
    );
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 12 }).map((parts) => parts.join('')),
        (target) => {
          const path = appPath(target, ORIGIN);
          expect(path.startsWith('/')).toBe(true);
          expect(path).not.toMatch(/^\/[/\\]/);
          expect(new URL(path, ORIGIN).origin).toBe(ORIGIN);
          expect(new URL(path, ORIGIN).pathname).not.toBe('/login');
        },
      ),
      { numRuns: 2000 },
    );
  });
});
