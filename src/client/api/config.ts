/** Base URLs of the three services (docs/ARCHITECTURE.md), from build-time env with same-origin defaults. */
export const API_BASE = import.meta.env.VITE_API_BASE ?? '/api';
export const FILES_BASE = import.meta.env.VITE_FILES_BASE ?? '/sharepoint';
export const DOWNLOAD_BASE = import.meta.env.VITE_DOWNLOAD_BASE ?? '/download';
/** The fixed client id every request carries (the original backend's default 'pc' client). */
export const CLIENT_ID = import.meta.env.VITE_CLIENT_ID ?? 'e5cd7e4891bf95d1d19206ce24a7b32e';
/** Every main-service call gives up after 30 s (docs/PRODUCT.md section 10). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** The one username that sees the 'SP测试' navigation entry. */
export const SP_TEST_USER = import.meta.env.VITE_SP_TEST_USER ?? '';
/** The version of the schema files this app was built with (scripts/lib/vite-kind-schemas.ts). */
export const BUILT_SCHEMAS_VERSION: string = typeof __SCHEMAS_VERSION__ === 'string' ? __SCHEMAS_VERSION__ : '';

/** What signs a request to our services (page, entry, service worker): the client id, this build's schema files and the Bearer token. */
export function signInHeaders(token: string | null | undefined): Record<string, string> {
  return {
    clientid: CLIENT_ID,
    ...(BUILT_SCHEMAS_VERSION !== '' ? { 'x-schemas-version': BUILT_SCHEMAS_VERSION } : {}),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
}
