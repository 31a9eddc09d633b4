/** Where a `redirect` (or a remembered origin) may lead after signing in: a path of this app as the browser resolves it, else '/'. */
export function appPath(target: unknown, origin = window.location.origin): string {
  if (typeof target !== 'string' || !target.startsWith('/')) return '/';
  let url: URL;
  try {
    url = new URL(target, origin);
  } catch {
    return '/';
  }
  const path = `${url.pathname}${url.search}${url.hash}`;
  // The router reads '//x' or '/\x' as another host, so such paths count as leaving too.
  if (url.origin !== origin || /^\/[/\\]/.test(path) || url.pathname === '/login' || url.pathname.startsWith('/login/')) return '/';
  return path;
}
