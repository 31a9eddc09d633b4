import { useMemo } from 'react';
import { reportView } from './report-view';

/**
 * The AI report rendered from markdown as text structure only (report-view.ts): the model's text is
 * untrusted, so nothing in it can style, cover or take input on the app. Loaded only when a report
 * is opened, so the markdown and sanitising libraries do not weigh on the issue screen.
 */
export default function ReportMarkdown({ text }: { text: string }) {
  const html = useMemo(() => reportView(text).html, [text]);
  return <div className="ai-report-markdown" data-testid="ai-report" dangerouslySetInnerHTML={{ __html: html }} />;
}
