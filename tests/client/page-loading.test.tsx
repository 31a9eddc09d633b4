import { render, screen } from '@testing-library/react';
import { Suspense, type ComponentType } from 'react';
import { describe, expect, it } from 'vitest';
import { retryableLazy } from '../../src/client/ui/error-boundary';
import { loadPage } from '../../src/client/app/page-imports';

type PageModule = { default: ComponentType };

// A page whose code has already arrived is drawn in the same render as the app: a lazy page that
// suspended would show its fallback first, and React reveals what replaces a fallback no sooner
// than 300 ms after it was shown (measured in the built app: the Workspace's welcome line came
// 350-580 ms after the page's code, and 100-200 ms once it no longer waited).
describe('a page whose code is here', () => {
  it('is drawn at once, with no Suspense fallback', () => {
    const module: PageModule = { default: () => <p>Here at once</p> };
    const loading = Object.assign(Promise.resolve(module), { status: 'fulfilled', value: module });
    const page = retryableLazy(() => loading);
    render(
      <Suspense fallback={<p>Waiting for the code</p>}>
        <page.Page />
      </Suspense>,
    );
    expect(screen.getByText('Here at once')).toBeInTheDocument();
    expect(screen.queryByText('Waiting for the code')).toBeNull();
  });

  it('still waits for code that has not arrived', async () => {
    let arrive!: (m: PageModule) => void;
    const page = retryableLazy(() => new Promise<PageModule>((resolve) => (arrive = resolve)));
    render(
      <Suspense fallback={<p>Waiting for the code</p>}>
        <page.Page />
      </Suspense>,
    );
    expect(screen.getByText('Waiting for the code')).toBeInTheDocument();
    arrive({ default: () => <p>Arrived</p> });
    expect(await screen.findByText('Arrived')).toBeInTheDocument();
  });

  it('is fetched once, and says when it has arrived', async () => {
    const first = loadPage('notFound');
    expect(loadPage('notFound')).toBe(first);
    await first;
    expect(first).toMatchObject({ status: 'fulfilled' });
    expect((first as { value?: PageModule }).value?.default).toBeTypeOf('function');
  });
});
