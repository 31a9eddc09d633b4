import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { LocationMeta } from '../../shared/kind-types';

type Values = Record<string, unknown>;

/** Six decimals: about 0.1 m, finer than any phone's fix. */
const round = (n: number): number => Math.round(n * 1e6) / 1e6;

const positionError = (e: GeolocationPositionError) =>
  e.code === e.PERMISSION_DENIED ? 'location.denied' : e.code === e.TIMEOUT ? 'location.timeout' : 'location.unavailable';

/** Fills a longitude and latitude pair (x-kind.locations) from the phone's GPS (works without coverage), with Clear. */
export function LocationControl({ pair, values, onChange }: { pair: LocationMeta; values: Values; onChange: (patch: Values) => void }) {
  const { t } = useTranslation();
  const [state, setState] = useState<
    | { status: 'idle' }
    | { status: 'locating' }
    | { status: 'found'; accuracy: number }
    | { status: 'failed'; message: ReturnType<typeof positionError> | 'location.unsupported' }
  >({ status: 'idle' });
  const filled = [values[pair.lon], values[pair.lat]].some((v) => v !== undefined && v !== null && v !== '');
  // A kind with several pairs names each ('Start', 'End'); one pair needs no name.
  const [named, name] = [pair.label !== undefined, pair.label ?? ''];
  const locate = (): void => {
    const geo = typeof navigator !== 'undefined' ? navigator.geolocation : undefined;
    if (!geo) return setState({ status: 'failed', message: 'location.unsupported' });
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
          {state.status === 'locating' ? t('location.finding') : t(named ? 'location.useNamed' : 'location.use', { name })}
        </button>
        {filled && (
          <button
            type="button"
            className="location-button location-clear"
            onClick={clear}
            aria-label={t(named ? 'location.clearLabelNamed' : 'location.clearLabel', { name })}
          >
            <i className="pi pi-times" aria-hidden="true" />
            {t('location.clear')}
          </button>
        )}
      </div>
      <p className="location-status" role="status">
        {state.status === 'found' && t('location.filled', { metres: Math.round(state.accuracy) })}
        {state.status === 'failed' && t(state.message)}
      </p>
    </div>
  );
}
