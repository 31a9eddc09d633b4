import { useEffect, type ReactNode } from 'react';
import type { PreviewProblem, SchemasPreviewState } from 'virtual:schemas-preview';

export function PreviewBar({ dir, files, children }: { dir: string; files: number; children?: ReactNode }) {
  return (
    <header className="preview-bar">
      <div className="preview-bar-title">
        <i className="pi pi-eye" aria-hidden="true" />
        <h1>Schema preview</h1>
        <span className="preview-bar-hint">saves nothing</span>
      </div>
      <div className="preview-bar-dir">
        {dir}{' '}
        <span className="preview-bar-count">
          · {files} file{files === 1 ? '' : 's'}
        </span>
      </div>
      {children}
    </header>
  );
}

export function ProblemBox({ file, path, messages }: { file: string; path: string; messages: string[] }) {
  return (
    <section className="preview-problem" role="alert" aria-label={`Problems in ${file}`}>
      <h2>
        <i className="pi pi-exclamation-triangle" aria-hidden="true" />
        {file}: {messages.length} problem{messages.length === 1 ? '' : 's'}
      </h2>
      <div className="preview-problem-path">{path}</div>
      <ul>
        {messages.map((m, i) => (
          <li key={i}>{m}</li>
        ))}
      </ul>
    </section>
  );
}

/** Groups problems by file, in the order the files were checked. */
export function byFile(problems: PreviewProblem[]): { file: string; path: string; messages: string[] }[] {
  const groups = new Map<string, { file: string; path: string; messages: string[] }>();
  for (const p of problems) {
    const group = groups.get(p.path) ?? { file: p.file, path: p.path, messages: [] };
    group.messages.push(p.message);
    groups.set(p.path, group);
  }
  return [...groups.values()];
}

/** What the preview shows while a schema file has problems, instead of the screens. */
export function ProblemsPage({ state }: { state: SchemasPreviewState }) {
  useRestoredScroll();
  return (
    <>
      <PreviewBar dir={state.dir} files={state.files.length} />
      <main className="preview-main preview-problems">
        {byFile(state.problems).map((g) => (
          <ProblemBox key={g.path} file={g.file} path={g.path} messages={g.messages} />
        ))}
        <p className="preview-note">
          The server refuses to start with these problems, naming the same places. Fix the file and save it: this page updates by itself.
        </p>
      </main>
    </>
  );
}

// Saving a schema file reloads the preview (scripts/lib/schemas-preview.ts): the kind and screen
// shown are in the address (#issue/view), and the scroll position is kept here over the reload.

const KEY = 'schemas-preview-scroll';

export function keepScrollOverReloads(): void {
  import.meta.hot?.on('vite:beforeFullReload', () => {
    sessionStorage.setItem(KEY, String(window.scrollY));
  });
}

export function useRestoredScroll(): void {
  useEffect(() => {
    const y = Number(sessionStorage.getItem(KEY));
    sessionStorage.removeItem(KEY);
    if (y > 0) window.scrollTo(0, y);
  }, []);
}
