import { useState } from 'react';
import type { LocationMeta } from '../../shared/kind-types';

/**
 * Fills a longitude and latitude pair (x-kind.locations) from the phone's position: one tap, the
 * accuracy said in metres, and Clear. The position comes from the phone's GPS, so it works
 * without coverage. Nothing is asked before the tap (the browser asks for permission then).
 */

type Values = Record<string, unknown>;

/** Six decimals: about 0.1 m, finer than any phone's fix. */
const round = (n: number): number => Math.round(n * 1e6) / 1e6;

function positionError(e: GeolocationPositionError): string {
  if (e.code === e.PERMISSION_DENIED) return 'Location is not allowed for this site: allow it in the browser’s settings, or type the values.';
  if (e.code === e.TIMEOUT) return 'No position within 20 seconds: try again in the open, or type the values.';
  return 'The phone could not tell its position: try again, or type the values.';
}

export function LocationControl({ pair, values, onChange }: { pair: LocationMeta; values: Values; onChange: (patch: Values) => void }) {
  const [state, setState] = useState<{ status: 'idle' } | { status: 'locating' } | { status: 'found'; accuracy: number } | { status: 'failed'; message: string }>({ status: 'idle' });
  const filled = [values[pair.lon], values[pair.lat]].some((v) => v !== undefined && v !== null && v !== '');
  // A kind with several pairs names each ('Start', 'End'); one pair needs no name.
  const named = pair.label === undefined ? '' : ` (${pair.label})`;
  const locate = (): void => {
    const geo = typeof navigator !== 'undefined' ? navigator.geolocation : undefined;
    if (!geo) {
      setState({ status: 'failed', message: 'This browser cannot tell the phone’s position: type the values.' });
      return;
    }
    setState({ status: 'locating' });
    geo.getCurrentPosition(
      (p) => {
        onChange({ [pair.lon]: round(p.coords.longitude), [pair.lat]: round(p.coords.latitude) });
        setState({ status: 'found', accuracy: p.coords.accuracy });
      },
      (e) => setState({ status: 'failed', message: positionError(e) }),
      { enableHighAccuracy: true, timeout: 20_000, maximumAge: 30_000 },
    );
  };
  const clear = (): void => {
    onChange({ [pair.lon]: undefined, [pair.lat]: undefined });
    setState({ status: 'idle' });
  };
  return (
    <div className="location-control" data-testid={`location-${pair.lon}`}>
      <div className="location-control-buttons">
        <button type="button" className="location-button" onClick={locate} disabled={state.status === 'locating'}>
          <i className={`pi ${state.status === 'locating' ? 'pi-spin pi-spinner' : 'pi-map-marker'}`} aria-hidden="true" />
          {state.status === 'locating' ? 'Finding your position…' : `Use my position${named}`}
        </button>
        {filled && (
          <button type="button" className="location-button location-clear" onClick={clear} aria-label={`Clear the position${named}`}>
            <i className="pi pi-times" aria-hidden="true" />
            Clear
          </button>
        )}
      </div>
      <p className="location-status" role="status">
        {state.status === 'found' && `Filled from this phone, accurate to ±${Math.round(state.accuracy)} m`}
        {state.status === 'failed' && state.message}
      </p>
    </div>
  );
}
