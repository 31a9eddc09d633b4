import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import fp from 'fastify-plugin';
import type { KindRegistry } from '../../shared/kind-types.js';
import { APP_SOURCE, PAGE_SOURCES, pageForPath, type PageName } from '../../shared/page-routes.js';
import { pageShellHtml, pageShellOf, SHELL_TEXTS, type ShellLanguage } from '../../shared/page-shell.js';
import type { Config } from '../config.js';
import { ApiError } from '../http/envelope.js';
import { requestLanguage } from '../http/language.js';

/** The web app: its manifest (with the package version that the Profile page shows), its pages and built files (clientRoutes). Registered last: its not-found answer is the app's. */
export const clientPlugin = fp<{ config: Config; version: string }>(
  async (app, { config, version }) => {
    const manifest = {
      name: 'Road Test Data',
      short_name: 'Road Test',
      description: 'Drives, charging sessions, points of interest and issues of a vehicle road test.',
      version,
      start_url: '/',
      scope: '/',
      display: 'standalone',
      orientation: 'portrait',
      background_color: '#f8fafc',
      theme_color: '#1e3a5f',
      icons: [{ src: '/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
    };
    app.get('/manifest.json', async (_request, reply) => {
      reply.header('Cache-Control', 'no-cache').type('application/manifest+json; charset=utf-8');
      return manifest;
    });
    await clientRoutes(app, config.clientDir, app.registry);
  },
  { name: 'rtd-client', dependencies: ['rtd-db'], fastify: '5.x' },
);

type ManifestChunk = { file: string; isEntry?: boolean; imports?: string[] };

const EMPTY_ROOT = '<div id="root"></div>';

type PageHtml = { body: string; etag: string };

/** index.html in a language (decision 045): <html lang>, data-language (the app's first language) and the title. */
function inLanguage(html: string, language: ShellLanguage): string {
  const lang = language === 'zh' ? 'zh-CN' : 'en';
  const out = html.replace(/<html\b[^>]*>/, () => `<html lang="${lang}" data-language="${language}">`);
  return language === 'en' ? out : out.replace(`<title>${SHELL_TEXTS.en.appName}</title>`, () => `<title>${SHELL_TEXTS[language].appName}</title>`);
}

/** Every chunk a chunk statically imports, itself included, as the browser would load them. */
function closure(manifest: Record<string, ManifestChunk>, key: string, into: Set<string>): Set<string> {
  if (into.has(key) || !manifest[key]) return into;
  into.add(key);
  for (const imported of manifest[key].imports ?? []) closure(manifest, imported, into);
  return into;
}

/**
 * index.html for each page, in the request's language, with <link rel="modulepreload"> for the
 * page's chunks the entry does not load (decision 018), from Vite's manifest; each with its ETag.
 * A signed-in screen's page carries its shell in #root instead (decision 026), without preloads, so
 * on a slow link its paint waits for no script.
 */
function pageHtmlBuilder(clientDir: string, registry: KindRegistry): (pathname: string, language?: ShellLanguage) => PageHtml {
  const index = fs.readFileSync(path.join(clientDir, 'index.html'), 'utf8');
  const manifestFile = path.join(clientDir, '.vite', 'manifest.json');
  const manifest = fs.existsSync(manifestFile) ? (JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, ManifestChunk>) : {};
  const entry = Object.keys(manifest).find((k) => manifest[k]?.isEntry);
  const inEntry = entry ? closure(manifest, entry, new Set()) : new Set<string>();
  const pages = new Map<string, PageHtml>();
  const etagOf = (body: string): string => `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  const build = (page: PageName, language: ShellLanguage): PageHtml => {
    // The app itself (main.tsx, which the entry imports), then the page.
    const wanted = closure(manifest, PAGE_SOURCES[page], closure(manifest, APP_SOURCE, new Set()));
    const chunks = [...wanted].filter((k) => !inEntry.has(k));
    const links = chunks.map((k) => `<link rel="modulepreload" crossorigin href="/${(manifest[k] as ManifestChunk).file}">`).join('\n    ');
    const body = inLanguage(links === '' ? index : index.replace('</head>', `  ${links}\n  </head>`), language);
    return { body, etag: etagOf(body) };
  };
  return (pathname, language = 'en') => {
    const shell = pageShellOf(pathname, registry, language);
    if (shell && index.includes(EMPTY_ROOT)) {
      // A function: a title from the address may hold '$&', which a replacement string would expand.
      const body = inLanguage(index, language).replace(EMPTY_ROOT, () => `<div id="root">${pageShellHtml(shell, pathname, language)}</div>`);
      return { body, etag: etagOf(body) };
    }
    const page = pageForPath(pathname);
    let html = pages.get(`${page} ${language}`);
    if (!html) {
      html = build(page, language);
      pages.set(`${page} ${language}`, html);
    }
    return html;
  };
}

const PLACEHOLDER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Road Test Data</title></head><body style="font-family:system-ui,sans-serif;padding:2rem;max-width:30rem;margin:auto">
<h1>Road Test Data</h1><p>The server is running, but the app has not been built. Run <code>npm run build</code> or <code>npm start</code>.</p></body></html>`;

const API_PREFIXES = ['/api/', '/sharepoint/', '/download/'];

/**
 * Serves the built client at '/': hashed assets cached for a year, and the page (pageHtmlBuilder) for
 * any other GET that wants HTML, so client routes survive a reload. Unknown API paths: a JSON 404.
 */
async function clientRoutes(app: FastifyInstance, clientDir: string, registry: KindRegistry): Promise<void> {
  const index = path.join(clientDir, 'index.html');
  const built = fs.existsSync(index);
  const pageHtml = built ? pageHtmlBuilder(clientDir, registry) : undefined;
  if (built) {
    await app.register(fastifyStatic, {
      root: clientDir,
      wildcard: false,
      index: false,
      cacheControl: false,
      preCompressed: true, // .br/.gz files written at build time
      dotfiles: 'deny', // the build manifest is not for browsers
      setHeaders(res, filePath) {
        const hashed = filePath.includes(`${path.sep}assets${path.sep}`);
        res.setHeader('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }
  let allowedMethods: ((url: string) => string[]) | undefined;
  app.setNotFoundHandler(async (request, reply) => {
    const url = request.url.split('?')[0] ?? '/';
    // A known path asked with another method: 405 with the methods it has (RFC 9110), not 404.
    allowedMethods ??= methodsByPath(app.routeList);
    const api = API_PREFIXES.some((p) => url.startsWith(p));
    const allowed = api ? allowedMethods(url) : [];
    if (allowed.length > 0) {
      const use = allowed.length === 1 ? allowed[0] : `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`;
      throw new ApiError(405, `${request.method} is not allowed on ${url}; use ${use}`, {
        zh: `${url} 不允许 ${request.method}；请使用 ${allowed.join('、')}`,
        headers: { 'cache-control': 'no-store', allow: allowed.join(', ') },
      });
    }
    // A page: what a browser asks for as HTML, and any path that is not a file; a missing file stays a 404.
    const notAFile = !/\.[A-Za-z0-9]+$/.test(url.slice(url.lastIndexOf('/') + 1));
    const wantsHtml = (request.method === 'GET' || request.method === 'HEAD') && ((request.headers.accept ?? '').includes('text/html') || notAFile);
    if (api || url === '/api' || !wantsHtml) {
      throw new ApiError(404, `No such endpoint: ${request.method} ${url}`, {
        zh: `没有这个接口：${request.method} ${url}`,
        headers: { 'cache-control': 'no-store' },
      });
    }
    reply.header('Cache-Control', 'no-cache').header('Vary', 'Accept-Language').type('text/html; charset=utf-8');
    if (!pageHtml) return reply.send(PLACEHOLDER);
    const page = pageHtml(url, requestLanguage(request));
    reply.header('ETag', page.etag);
    const known = (request.headers['if-none-match'] ?? '').split(',').map((t) => t.trim().replace(/^W\//, ''));
    if (known.includes(page.etag)) return reply.status(304).send();
    return reply.send(page.body);
  });
}

/** The methods the routes answer for a concrete path: ':param' segments match any one segment, '*' the rest. */
function methodsByPath(routes: string[]): (url: string) => string[] {
  const patterns = routes.map((route) => {
    const space = route.indexOf(' ');
    const body = route
      .slice(space + 1)
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    return { method: route.slice(0, space), re: new RegExp(`^${body}/?$`) };
  });
  return (url) => {
    let decoded: string;
    try {
      decoded = decodeURI(url);
    } catch {
      return [];
    }
    return [...new Set(patterns.filter(({ re }) => re.test(decoded)).map(({ method }) => method))].sort();
  };
}
