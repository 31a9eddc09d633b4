/** The app's version from /manifest.json (served by our server with the package version). */
export async function fetchAppVersion(): Promise<string> {
  const res = await fetch('/manifest.json', { cache: 'no-store' });
  if (!res.ok) throw new Error(`GET /manifest.json answered HTTP ${res.status}`);
  const manifest = (await res.json()) as { version?: unknown };
  if (typeof manifest.version !== 'string' || manifest.version === '') throw new Error('/manifest.json has no version');
  return manifest.version;
}
