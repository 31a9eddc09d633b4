import { Component, Fragment, lazy, type ComponentType, type ErrorInfo, type ReactNode } from 'react';
import { t } from '../i18n';
import { EmptyState } from './loading';

/**
 * A lazily loaded page whose loading can be tried again: React's lazy() keeps a failed import (a
 * chunk fetched without coverage, or gone after a deploy) for good, so `retry()` makes a new one.
 */
export interface RetryablePage {
  Page: ComponentType;
  retry(): void;
}

/**
 * Whether a page's code could not be fetched (no coverage, or a file gone after a deploy). Browsers
 * remember a failed module import, so only loading the app again fetches it anew.
 */
export function isCodeLoadError(error: Error): boolean {
  return /dynamically imported module|Importing a module script failed|error loading dynamically imported module|Unable to preload CSS|Failed to fetch/i.test(
    error.message,
  );
}

type PageModule = { default: ComponentType };

/**
 * The module of a page's import, handed over at once when it has already arrived: React's lazy()
 * takes a thenable that calls back synchronously as loaded, and draws the page in the same render.
 * Given the promise itself, it would suspend once even for code that is here, show its Suspense
 * fallback, and reveal the page no sooner than 300 ms after that fallback (React throttles reveals).
 * A promise says it has arrived as React marks the promises it reads: status 'fulfilled', value.
 */
function handOver(loading: Promise<PageModule> & { status?: string; value?: PageModule }): Promise<PageModule> {
  const module = loading.status === 'fulfilled' ? loading.value : undefined;
  if (!module) return loading;
  return { then: (onLoaded: (m: PageModule) => unknown) => onLoaded(module) } as unknown as Promise<PageModule>;
}

/** A lazily loaded page; `retry()` makes a new lazy page, since React's lazy() keeps a failed import for good. */
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

interface Props {
  children: ReactNode;
  /** Called before the screen is drawn again, with what failed (to load a page's code anew). */
  onRetry?: (error: Error) => void;
}

/**
 * One screen's failure stays on that screen: instead of a blank app, it says the screen could not
 * be shown and offers to try again, with the navigation still there. Give it a `key` of the path so
 * that going to another screen starts clean.
 */
export class ScreenErrorBoundary extends Component<Props, { error: Error | null; attempt: number }> {
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
    return (
      <EmptyState icon="pi-exclamation-triangle" title={t('app.screenFailed')} text={t('app.screenFailedDetail')} role="alert">
        <button type="button" className="p-button p-component" onClick={this.retry}>
          <span className="p-button-label">{t('app.tryAgain')}</span>
        </button>
      </EmptyState>
    );
  }
}
