import type { ReactNode } from 'react';

// Stands in for markdown-to-jsx (vite.config.ts aliases 'markdown-to-jsx/react' here): RJSF
// renders markdown only where a uiSchema asks for it (enableMarkdownInDescription/Help), which
// ours never do, and in messages of its own; our schema texts are plain. 30 KB gzip less.

/** Renders its text as it is, in a span, keeping the attributes RJSF passes (data-testid). */
export function Markdown({ children, options: _options, ...rest }: { children?: ReactNode; options?: unknown; [attribute: string]: unknown }) {
  return <span {...(rest as Record<string, string>)}>{children}</span>;
}
