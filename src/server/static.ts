import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { KindRegistry } from '../shared/kind-types.js';
import { pageHtmlBuilder } from './page-html.js';
import { requestLanguage } from './http/language.js';
import { ApiError } from './http/envelope.js';

const PLACEHOLDER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Road Test Data</title></head><body style="font-family:system-ui,sans-serif;padding:2rem;max-width:30rem;margin:auto">
<h1>Road Test Data</h1><p>The server is running, but the app has not been built. Run <code>npm run build</code> or <code>npm start</code>.</p></body></html>`;

const API_PREFIXES = ['/api/', '/sharepoint/', '/download/'];

/**
 * Serves the built client at '/': hashed assets cached for a year, and the page (page-html.ts) for
 * any other GET that wants HTML, so client routes survive a reload. Unknown API paths: a JSON 404.
 */
export async function clientRoutes(app: FastifyInstance, clientDir: string, registry: KindRegistry): Promise<void> {
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
    allowedMethods ??= methodsByPath((app as unknown as { routeList?: string[] }).routeList ?? []);
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
