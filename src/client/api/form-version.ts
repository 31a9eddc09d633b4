import { useSyncExternalStore } from 'react';
import { BUILT_SCHEMAS_VERSION } from './config';

// Whether the server's schema files (x-schemas-version) differ from this build's: record screens then update (decision 034).

let serverVersion: string | undefined;
const listeners = new Set<() => void>();

export function noteServerSchemas(version: string | null | undefined): void {
  if (!version || version === serverVersion) return;
  serverVersion = version;
  for (const listener of listeners) listener();
}

const formOutdated = (): boolean => serverVersion !== undefined && BUILT_SCHEMAS_VERSION !== '' && serverVersion !== BUILT_SCHEMAS_VERSION;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const useFormOutdated = (): boolean => useSyncExternalStore(subscribe, formOutdated, () => false);
