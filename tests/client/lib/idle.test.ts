import { afterEach, describe, expect, it, vi } from 'vitest';
import { whenIdle } from '../../../src/client/lib/idle';

afterEach(() => {
  vi.useRealTimers();
});

describe('whenIdle', () => {
  it('asks the browser for an idle moment, with the deadline as its timeout, and can be cancelled', () => {
    const requestIdleCallback = vi.fn((_cb: () => void, _options?: { timeout: number }) => 42);
    const cancelIdleCallback = vi.fn();
    vi.stubGlobal('requestIdleCallback', requestIdleCallback);
    vi.stubGlobal('cancelIdleCallback', cancelIdleCallback);
    const task = vi.fn();
    const cancel = whenIdle(task, 3000);
    expect(requestIdleCallback).toHaveBeenCalledWith(task, { timeout: 3000 });
    expect(task).not.toHaveBeenCalled();
    requestIdleCallback.mock.calls[0]![0]();
    expect(task).toHaveBeenCalledOnce();
    cancel();
    expect(cancelIdleCallback).toHaveBeenCalledWith(42);
  });

  it('falls back to a short timer where requestIdleCallback is missing (Safari), never running twice', () => {
    vi.stubGlobal('requestIdleCallback', undefined);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const task = vi.fn();
    whenIdle(task, 5000);
    vi.advanceTimersByTime(150);
    expect(task).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(task).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(10_000);
    expect(task).toHaveBeenCalledOnce();
  });

  it('does not run a cancelled task', () => {
    vi.stubGlobal('requestIdleCallback', undefined);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const task = vi.fn();
    whenIdle(task)();
    vi.advanceTimersByTime(5000);
    expect(task).not.toHaveBeenCalled();
  });
});
