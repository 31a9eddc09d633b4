import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeFetch, okInfo } from './fake-server';
import { current, renderApp, signedIn } from './render';

function buttons() {
  return {
    startDrive: screen.getByRole('button', { name: 'Start Drive' }),
    endDrive: screen.getByRole('button', { name: 'End Drive' }),
    startCharging: screen.getByRole('button', { name: 'Start Charging' }),
    endCharging: screen.getByRole('button', { name: 'End Charging' }),
  };
}

async function openWorkspace() {
  fakeFetch({ 'GET /api/system/user/getInfo': okInfo() });
  const view = renderApp('/dashboard');
  await screen.findByText('Welcome back, alice');
  return view;
}

describe('Workspace', () => {
  it('shows the four cards', async () => {
    signedIn();
    await openWorkspace();
    for (const title of ['Vehicle Status', 'Driving Status', 'Charging Status', 'Record Data']) expect(screen.getByText(title)).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Workspace' })).toBeInTheDocument();
    expect(screen.getByText('V1')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Record POI' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Record Issue' })).toBeEnabled();
  });

  it('runs a drive session: start, kept across a reload, end opens the new drive record with the times', async () => {
    signedIn();
    const view = await openWorkspace();
    let b = buttons();
    expect(b.startDrive).toBeEnabled();
    expect(b.endDrive).toBeDisabled();
    const user = userEvent.setup();
    await user.click(b.startDrive);
    expect(await screen.findByText('Drive session started')).toBeInTheDocument();
    b = buttons();
    expect(b.startDrive).toBeDisabled();
    expect(b.endDrive).toBeEnabled();
    expect(b.startCharging).toBeDisabled(); // no charging while driving
    const started = JSON.parse(localStorage.getItem('driveSession') as string).startedAt as string;
    expect(started).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

    view.unmount();
    await openWorkspace();
    b = buttons();
    expect(b.startDrive).toBeDisabled();
    expect(b.endDrive).toBeEnabled();

    await user.click(b.endDrive);
    expect(await screen.findByText('Drive session ended')).toBeInTheDocument();
    await waitFor(() => expect(current.location?.pathname).toBe('/data/drive/new'));
    const prefill = (current.location?.state as { prefill: Record<string, unknown> }).prefill;
    expect(prefill).toMatchObject({ startTime: started, driveDate: started.slice(0, 10), travelTime: expect.any(Number) });
    expect(prefill['stopTime']).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(localStorage.getItem('driveSession')).toBeNull();
    // The new drive record opens with the session's times filled in.
    expect(await screen.findByRole('heading', { name: 'New Drive Record' })).toBeInTheDocument();
    expect(screen.getByLabelText('Start Time')).toHaveValue(started);
    expect(screen.getByLabelText('End Time')).toHaveValue(String(prefill['stopTime']));
    expect(screen.getByLabelText('Drive Date')).toHaveValue(started.slice(0, 10));
  });

  it('runs a charging session: start disables itself, end opens the new charging record with the times', async () => {
    signedIn();
    await openWorkspace();
    let b = buttons();
    expect(b.startCharging).toBeEnabled();
    expect(b.endCharging).toBeDisabled();
    const user = userEvent.setup();
    await user.click(b.startCharging);
    expect(await screen.findByText('Charging session started')).toBeInTheDocument();
    b = buttons();
    expect(b.startCharging).toBeDisabled();
    expect(b.endCharging).toBeEnabled();
    const started = JSON.parse(localStorage.getItem('chargingSession') as string).startedAt as string;
    await user.click(b.endCharging);
    expect(await screen.findByText('Charging session ended')).toBeInTheDocument();
    await waitFor(() => expect(current.location?.pathname).toBe('/data/charging/new'));
    expect((current.location?.state as { prefill: Record<string, unknown> }).prefill).toMatchObject({
      startChargeTime: started,
      chargeDate: started.slice(0, 10),
      totalChargeTime: expect.any(Number),
    });
  });

  it("opens Vehicle Status: the vehicle's figures labelled as samples, the record counts the project's real totals", async () => {
    signedIn();
    fakeFetch({
      'GET /api/system/user/getInfo': okInfo(),
      'GET /api/vtp/stats/total': () => ({ body: { code: 200, data: { drivingCount: 1, chargingCount: 2, issueCount: 3, poiCount: 4 } } }),
    });
    renderApp('/dashboard');
    await screen.findByText('Welcome back, alice');
    expect(screen.getByTestId('vehicle-sample')).toHaveTextContent('Sample data');
    await userEvent.setup().click(screen.getByRole('link', { name: /^Open Vehicle Status/ }));
    expect(await screen.findByRole('heading', { name: 'Vehicle Status' })).toBeInTheDocument();
    for (const label of ['Model', 'Battery', 'Odometer', 'Current Speed', 'Last Drive', 'Last Charge', 'Sample data']) {
      expect(screen.getByText(label)).toBeInTheDocument();
    }
    await waitFor(() => expect(screen.getByTestId('vehicle-drivingCount')).toHaveTextContent('1'));
    expect(screen.getByTestId('vehicle-chargingCount')).toHaveTextContent('2');
    expect(screen.getByTestId('vehicle-issueCount')).toHaveTextContent('3');
    expect(screen.getByTestId('vehicle-poiCount')).toHaveTextContent('4');
  });
});
