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
export function pageHtmlBuilder(clientDir: string, registry: KindRegistry): (pathname: string, language?: ShellLanguage) => PageHtml {
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
