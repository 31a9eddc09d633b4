// Work that first paint does not need (service worker registration, outbox sync, chunks that a
// screen will want later) waits until the browser is idle, so it never competes with the
// screen's own JavaScript (decision 018).

type IdleWindow = { requestIdleCallback?: (cb: () => void, options?: { timeout: number }) => number; cancelIdleCallback?: (handle: number) => void };

/**
 * Runs `task` once the main thread is idle, or after `timeout` ms at the latest (and after a
 * short timer where requestIdleCallback is missing, as in Safari). Returns a cancel function.
 */
export function whenIdle(task: () => void, timeout = 2000): () => void {
  const w = globalThis as IdleWindow;
  if (typeof w.requestIdleCallback === 'function') {
    const handle = w.requestIdleCallback(task, { timeout });
    return () => w.cancelIdleCallback?.(handle);
  }
  const handle = setTimeout(task, Math.min(timeout, 200));
  return () => clearTimeout(handle);
}
