import { useMemo } from 'react';
import { reportView } from './report-view';

/** The AI report as text structure only (report-view.ts), in a chunk loaded when a report is opened. */
export default function ReportMarkdown({ text }: { text: string }) {
  const html = useMemo(() => reportView(text).html, [text]);
  return <div className="ai-report-markdown" data-testid="ai-report" dangerouslySetInnerHTML={{ __html: html }} />;
}
