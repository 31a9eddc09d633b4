import { render, screen, waitFor } from '@testing-library/react';
import { Suspense } from 'react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { retryableLazy } from '../../src/client/ui/error-boundary';
import { fakeFetch, okInfo, takeConsoleErrors } from './fake-server';
import { renderApp, signedIn } from './render';

// The Vehicle Status page, made to fail while the test says so (React draws a failing screen more
// than once before it gives up, how many times depends on timing: a count would be flaky).
const fail = { on: false };
vi.mock('../../src/client/pages/vehicle-status-page', async (original) => {
  const real = await original<typeof import('../../src/client/pages/vehicle-status-page')>();
  return {
    ...real,
    VehicleStatusPage: () => {
      if (fail.on) throw new Error('the vehicle data could not be read');
      return <real.VehicleStatusPage />;
    },
  };
});

describe('a screen that fails', () => {
  it('fails alone: the app keeps its navigation, says so, and draws the screen again on Try Again', async () => {
    signedIn();
    // The screen's record counts are the project's real totals.
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo(), 'GET /api/vtp/stats/total': () => ({ body: { code: 200, data: {} } }) });
    fail.on = true;
    renderApp('/vehicle', undefined, { strict: false });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('This screen could not be shown');
    expect(alert).toHaveTextContent('Nothing you saved is lost: try again.');
    // The rest of the app is still there: the bottom navigation works.
    expect(screen.getByRole('link', { name: 'Workspace' })).toBeInTheDocument();
    expect(takeConsoleErrors().some((e) => String(e[0]).includes('A screen failed'))).toBe(true);
    fail.on = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try Again' }));
    expect(await screen.findByRole('heading', { name: 'Vehicle Status' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    takeConsoleErrors();
  });

  it('starts clean on another screen', async () => {
    signedIn();
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo(), 'GET /manifest.json': () => ({ body: { version: '1.0.0' } }) });
    fail.on = true;
    renderApp('/vehicle', undefined, { strict: false });
    await screen.findByRole('alert');
    await userEvent.setup().click(screen.getByRole('link', { name: 'Profile' }));
    expect(await screen.findByRole('heading', { name: 'My Profile' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    fail.on = false;
    takeConsoleErrors();
  });

  it("loads a page's code anew after a failed load: React's lazy alone keeps the failure", async () => {
    let attempts = 0;
    const page = retryableLazy(() => {
      attempts++;
      return attempts === 1 ? Promise.reject(new Error('Failed to fetch dynamically imported module')) : Promise.resolve({ default: () => <p>Loaded page</p> });
    });
    const first = render(
      <Suspense fallback={null}>
        <page.Page />
      </Suspense>,
    );
    await waitFor(() => expect(attempts).toBe(1));
    first.unmount();
    takeConsoleErrors();
    page.retry();
    render(
      <Suspense fallback={null}>
        <page.Page />
      </Suspense>,
    );
    expect(await screen.findByText('Loaded page')).toBeInTheDocument();
    expect(attempts).toBe(2);
  });
});
