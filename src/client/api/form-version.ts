import { useSyncExternalStore } from 'react';
import { BUILT_SCHEMAS_VERSION } from './config';

/**
 * Whether the server's schema files differ from the ones this app was built with
 * (docs/decisions/034). Every API answer carries the server's version (x-schemas-version); when it
 * is not this build's, record screens say that a new version of the form is available and update
 * before editing, so that nobody types into a form the server no longer has.
 */

export { BUILT_SCHEMAS_VERSION };

let serverVersion: string | undefined;
const listeners = new Set<() => void>();

/** Notes the version an answer named; called for every API answer. */
export function noteServerSchemas(version: string | null | undefined): void {
  if (!version || version === serverVersion) return;
  serverVersion = version;
  for (const listener of listeners) listener();
}

/** True once an answer named other schema files than this build's. */
export function formOutdated(): boolean {
  return serverVersion !== undefined && BUILT_SCHEMAS_VERSION !== '' && serverVersion !== BUILT_SCHEMAS_VERSION;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** formOutdated() as React state. */
export function useFormOutdated(): boolean {
  return useSyncExternalStore(subscribe, formOutdated, () => false);
}
