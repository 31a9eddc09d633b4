import { Component, Fragment, lazy, type ComponentType, type ErrorInfo, type ReactNode } from 'react';
import { t } from '../i18n';
import { EmptyState } from './loading';

export type PageModule = { default: ComponentType };
/** A page's import, marked as React's use() reads a promise it has seen settle. */
export type TrackedImport = Promise<PageModule> & { status?: 'pending' | 'fulfilled' | 'rejected'; value?: PageModule; reason?: unknown };

/** A lazily loaded page; `retry()` makes a new one, since React's lazy() keeps a failed import for good. */
export type RetryablePage = { Page: ComponentType; retry(): void };

/** Whether a page's code could not be fetched (no coverage, or gone after a deploy): only loading the app again fetches it anew. */
export function isCodeLoadError(error: Error): boolean {
  return /dynamically imported module|Importing a module script failed|error loading dynamically imported module|Unable to preload CSS|Failed to fetch/i.test(
    error.message,
  );
}

/**
 * A page's module handed over at once when it has arrived (status 'fulfilled', as React marks the
 * promises it reads): lazy() draws a thenable that calls back synchronously in the same render,
 * where a promise would suspend once and reveal the page no sooner than 300 ms later.
 */
function handOver(loading: TrackedImport): Promise<PageModule> {
  const module = loading.status === 'fulfilled' ? loading.value : undefined;
  if (!module) return loading;
  return { then: (onLoaded: (m: PageModule) => unknown) => onLoaded(module) } as unknown as Promise<PageModule>;
}

export function retryableLazy(load: () => Promise<PageModule>): RetryablePage {
  const make = () => lazy(() => handOver(load()));
  let Lazy = make();
  function Page() {
    return <Lazy />;
  }
  return {
    Page,
    retry: () => {
      Lazy = make();
    },
  };
}

/**
 * One screen's failure stays on that screen, with a way to try again (`onRetry` first, with what
 * failed) and the navigation still there. Keyed by the path, another screen starts clean. `fallback`:
 * what shows instead.
 */
type BoundaryProps = { children: ReactNode; onRetry?: (error: Error) => void; fallback?: (error: Error) => ReactNode };
export class ScreenErrorBoundary extends Component<BoundaryProps, { error: Error | null; attempt: number }> {
  override state = { error: null as Error | null, attempt: 0 };

  static getDerivedStateFromError(error: unknown): { error: Error } {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('A screen failed:', error, info.componentStack);
  }

  private readonly retry = (): void => {
    if (this.state.error) this.props.onRetry?.(this.state.error);
    this.setState((s) => ({ error: null, attempt: s.attempt + 1 }));
  };

  override render(): ReactNode {
    const { error, attempt } = this.state;
    // Keyed by the attempt: trying again mounts the screen anew.
    if (!error) return <Fragment key={attempt}>{this.props.children}</Fragment>;
    if (this.props.fallback) return this.props.fallback(error);
    return (
      <EmptyState icon="pi-exclamation-triangle" title={t('app.screenFailed')} text={t('app.screenFailedDetail')} role="alert">
        <button type="button" className="p-button p-component" onClick={this.retry}>
          <span className="p-button-label">{t('app.tryAgain')}</span>
        </button>
      </EmptyState>
    );
  }
}
