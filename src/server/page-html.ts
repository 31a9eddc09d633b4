import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { KindRegistry } from '../shared/kind-types.js';
import { APP_SOURCE, PAGE_SOURCES, pageForPath, type PageName } from '../shared/page-routes.js';
import { pageShellHtml, pageShellOf, SHELL_TEXTS, type ShellLanguage } from '../shared/page-shell.js';

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
}

const EMPTY_ROOT = '<div id="root"></div>';

export interface PageHtml {
  body: string;
  etag: string;
}

/**
 * index.html in a language (docs/decisions/045): <html lang> and data-language (the language the
 * app starts in when the Profile has not chosen one, src/client/i18n), and the tab's title.
 */
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
 * index.html for each page of the app, with <link rel="modulepreload"> for the chunks of that
 * page that the entry does not already load: without them the browser finds the page chunk only
 * once the entry has run, then its imports only once that has arrived (decision 018). Built once
 * at start from the client build's index.html and Vite's manifest; each answer has its ETag.
 * Without a manifest, every page gets index.html as it is. Each page is drawn in the language
 * the request's Accept-Language prefers, English or Chinese (docs/decisions/045).
 *
 * A signed-in screen's page carries its shell in #root instead (src/shared/page-shell.ts, decision
 * 026): the title bar and the bottom navigation, painted before any script has run. It has no
 * preloads: the entry (boot.ts) fetches the app and the page once the shell is on the screen, so
 * on a slow link the stylesheet does not share it with the scripts, and the paint waits for neither.
 */
export function pageHtmlBuilder(clientDir: string, registry?: KindRegistry): (pathname: string, language?: ShellLanguage) => PageHtml {
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
    const shell = registry ? pageShellOf(pathname, registry, language) : undefined;
    if (shell && index.includes(EMPTY_ROOT)) {
      // A function, not a string: a title from the address may hold '$&' or "$'", which a
      // replacement string would expand.
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
