import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PAGE_SOURCES, pageForPath, type PageName } from '../shared/page-routes.js';

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
}

export interface PageHtml {
  body: string;
  etag: string;
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
 * Without a manifest, every page gets index.html as it is.
 */
export function pageHtmlBuilder(clientDir: string): (pathname: string) => PageHtml {
  const index = fs.readFileSync(path.join(clientDir, 'index.html'), 'utf8');
  const manifestFile = path.join(clientDir, '.vite', 'manifest.json');
  const manifest = fs.existsSync(manifestFile) ? (JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, ManifestChunk>) : {};
  const entry = Object.keys(manifest).find((k) => manifest[k]?.isEntry);
  const inEntry = entry ? closure(manifest, entry, new Set()) : new Set<string>();
  const pages = new Map<PageName, PageHtml>();
  const build = (page: PageName): PageHtml => {
    const chunks = [...closure(manifest, PAGE_SOURCES[page], new Set())].filter((k) => !inEntry.has(k));
    const links = chunks.map((k) => `<link rel="modulepreload" crossorigin href="/${(manifest[k] as ManifestChunk).file}">`).join('\n    ');
    const body = links === '' ? index : index.replace('</head>', `  ${links}\n  </head>`);
    return { body, etag: `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
  };
  return (pathname) => {
    const page = pageForPath(pathname);
    let html = pages.get(page);
    if (!html) {
      html = build(page);
      pages.set(page, html);
    }
    return html;
  };
}
