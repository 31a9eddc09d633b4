import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeFetch, okInfo } from './fake-server';
import { renderApp, signedIn } from './render';
import { loadRecordForm } from '../../src/client/engine/use-record-form';
import { turnSign } from '../../src/client/engine/widgets/signed-number';

beforeAll(() => loadRecordForm(), 20_000);
afterEach(() => vi.unstubAllGlobals());

const input = (label: string): HTMLInputElement => screen.getByLabelText(label) as HTMLInputElement;

function withPosition(result: { coords: { longitude: number; latitude: number; accuracy: number } } | { code: number }): void {
  const geolocation = {
    getCurrentPosition: (ok: PositionCallback, fail: PositionErrorCallback) =>
      'coords' in result
        ? ok(result as unknown as GeolocationPosition)
        : fail({ code: result.code, PERMISSION_DENIED: 1, POSITION_UNAVAILABLE: 2, TIMEOUT: 3, message: '' } as GeolocationPositionError),
  };
  Object.defineProperty(navigator, 'geolocation', { value: geolocation, configurable: true });
}

describe('the location of a new POI', () => {
  it('fills longitude and latitude from the phone’s position with its accuracy, and Clear empties both', async () => {
    signedIn();
    withPosition({ coords: { longitude: -0.1276543219, latitude: 51.5072178, accuracy: 14.6 } });
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo() });
    renderApp('/data/poi/new');
    const user = userEvent.setup();
    // The first test waits for the lazy detail screen's chunk on two busy cores.
    await user.click(await screen.findByRole('button', { name: 'Use my position' }, { timeout: 15_000 }));
    await waitFor(() => expect(input('Longitude')).toHaveValue('-0.127654'));
    expect(input('Latitude')).toHaveValue('51.507218');
    expect(screen.getByText('Filled from this phone, accurate to ±15 m')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Clear the position' }));
    await waitFor(() => expect(input('Longitude')).toHaveValue(''));
    expect(input('Latitude')).toHaveValue('');
  }, 40_000);

  it('says what to do when the phone refuses, and leaves the fields as they were', async () => {
    signedIn();
    withPosition({ code: 1 });
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo() });
    renderApp('/data/poi/new');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Longitude'), '7.5');
    await user.click(screen.getByRole('button', { name: 'Use my position' }));
    expect(await screen.findByText(/Location is not allowed for this site/)).toBeInTheDocument();
    expect(input('Longitude')).toHaveValue('7.5');
  });
});

describe('numbers that may be negative', () => {
  it('turn their sign with the ± button beside the decimal keypad’s box; numbers of 0 or more have none', async () => {
    signedIn();
    fakeFetch({ 'GET /api/system/user/getInfo': okInfo() });
    renderApp('/data/issue/new');
    const user = userEvent.setup();
    const temperature = await screen.findByLabelText('Temperature (°C)');
    expect(temperature).toHaveAttribute('inputmode', 'decimal');
    await user.type(temperature, '12.5');
    await user.click(screen.getByRole('button', { name: 'Change the sign of Temperature (°C)' }));
    expect(input('Temperature (°C)')).toHaveValue('-12.5');
    await user.click(screen.getByRole('button', { name: 'Change the sign of Temperature (°C)' }));
    expect(input('Temperature (°C)')).toHaveValue('12.5');
    expect(screen.queryByRole('button', { name: 'Change the sign of Fault Mileage (km)' })).toBeNull();
  }, 40_000);

  it('turn the sign of what is typed, an empty box starting with the minus', () => {
    expect(turnSign('12.5')).toBe('-12.5');
    expect(turnSign('-3')).toBe('3');
    expect(turnSign('')).toBe('-');
    expect(turnSign(' 4 ')).toBe('-4');
  });
});
