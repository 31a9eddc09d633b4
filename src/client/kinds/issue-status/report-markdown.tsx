import { useMemo } from 'react';
import DOMPurify from 'dompurify';
import { marked } from 'marked';

/**
 * The AI report rendered from markdown. The model's text is untrusted: marked turns it into HTML
 * and DOMPurify removes anything that could run (scripts, handlers, javascript: links).
 * Loaded only when a report is opened, so neither library weighs on the issue screen.
 */
export default function ReportMarkdown({ text }: { text: string }) {
  const html = useMemo(() => DOMPurify.sanitize(marked.parse(text, { async: false, gfm: true, breaks: true })), [text]);
  return <div className="ai-report-markdown" data-testid="ai-report" dangerouslySetInnerHTML={{ __html: html }} />;
}
