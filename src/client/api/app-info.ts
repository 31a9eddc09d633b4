/** The app's version from /manifest.json (served by our server with the package version). */
export async function fetchAppVersion(): Promise<string> {
  const res = await fetch('/manifest.json', { cache: 'no-store' });
  if (!res.ok) throw new Error(`GET /manifest.json answered HTTP ${res.status}`);
  const manifest = (await res.json()) as { version?: unknown };
  if (typeof manifest.version !== 'string' || manifest.version === '') throw new Error('/manifest.json has no version');
  return manifest.version;
}

/**
 * Where the server sends an app address that is no screen here: a kind's earlier route (a renamed
 * kind, a changed x-kind.route; decision 059) redirects to its present one. The service worker
 * answers navigations from the app, so an old bookmark reaches the not-found screen, which asks.
 * Undefined when offline, or when the address did not move.
 */
export async function movedTo(address: string): Promise<string | undefined> {
  try {
    const res = await fetch(address, { cache: 'no-store', headers: { accept: 'text/html' } });
    if (!res.redirected) return undefined;
    const moved = new URL(res.url);
    return moved.origin === window.location.origin ? `${moved.pathname}${moved.search}${moved.hash}` : undefined;
  } catch {
    return undefined;
  }
}
