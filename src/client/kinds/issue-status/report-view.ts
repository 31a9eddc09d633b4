import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { createElement, useMemo } from 'react';

/** The text structure a report may have; nothing that draws, takes input or embeds survives, but its text. */
const TAGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'ul', 'ol', 'li', 'strong', 'em', 'b', 'i', 'del', 's', 'code', 'pre', 'blockquote', 'a'];
const TABLE_TAGS = ['table', 'thead', 'tbody', 'tr', 'th', 'td'];
const BLOCKS = new Set(['H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'P', 'PRE', 'BLOCKQUOTE', 'TR', 'HR', 'UL', 'OL', 'TABLE']);

/**
 * A report's markdown (untrusted: a worker's or a model's) as text structure only. Links keep only
 * http(s) and mailto, open in a new tab, and show their address after a text that is not it, so
 * "Tap here to sign in again" cannot hide an outside site. The text is what Copy puts on the clipboard.
 */
export function reportView(markdown: string): { html: string; text: string } {
  const fragment = DOMPurify.sanitize(marked.parse(markdown, { async: false, gfm: true, breaks: true }), {
    ALLOWED_TAGS: [...TAGS, ...TABLE_TAGS],
    ALLOWED_ATTR: ['href'],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
    RETURN_DOM_FRAGMENT: true,
  });
  for (const link of Array.from(fragment.querySelectorAll('a'))) {
    const href = link.getAttribute('href');
    if (href === null) {
      link.replaceWith(...Array.from(link.childNodes));
      continue;
    }
    link.setAttribute('target', '_blank');
    link.setAttribute('rel', 'noopener noreferrer');
    if (link.textContent?.trim() !== href) link.after(` (${href})`);
  }
  const holder = document.createElement('div');
  holder.append(fragment);
  return {
    html: holder.innerHTML,
    text: plainText(holder)
      .replace(/\n{3,}/g, '\n\n')
      .trim(),
  };
}

/** The text a reader sees in rendered report HTML: blocks on lines of their own, list items marked. */
function plainText(node: Node): string {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
  if (!(node instanceof Element)) return '';
  if (node.tagName === 'BR') return '\n';
  const inner = Array.from(node.childNodes, plainText).join('');
  if (node.tagName === 'LI')
    return `${node.parentElement?.tagName === 'OL' ? `${Array.from(node.parentElement.children).indexOf(node) + 1}.` : '-'} ${inner.trim()}\n`;
  if (node.tagName === 'TD' || node.tagName === 'TH') return `${inner.trim()}\t`;
  return BLOCKS.has(node.tagName) ? `\n${inner.replace(/\t$/, '')}\n` : inner;
}

/** The AI report as text structure only, in a chunk loaded when a report is opened. */
export default function ReportMarkdown({ text }: { text: string }) {
  const html = useMemo(() => reportView(text).html, [text]);
  return createElement('div', { className: 'ai-report-markdown', 'data-testid': 'ai-report', dangerouslySetInnerHTML: { __html: html } });
}
