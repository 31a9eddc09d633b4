/**
 * Runs one piece of work per key at a time, and lets callers share runs: a call while a run is
 * going on waits for the next run, which starts when the current one ends and serves every call
 * made in between. So each caller gets the result of a run that started after it called (a sync
 * that covers the bytes it wrote), and a burst of callers costs two runs, not one each.
 */
export class Coalescer<T> {
  private readonly keys = new Map<string, { running: boolean; waiting: { resolve: (v: T) => void; reject: (e: unknown) => void }[]; work: () => Promise<T> }>();
  private readonly runs = new Set<Promise<unknown>>();

  run(key: string, work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let state = this.keys.get(key);
      if (state === undefined) {
        state = { running: false, waiting: [], work };
        this.keys.set(key, state);
      }
      state.waiting.push({ resolve, reject });
      if (!state.running) this.drain(key, state);
    });
  }

  /** Resolves once no run is going on (for a clean shutdown). */
  async idle(): Promise<void> {
    while (this.runs.size > 0) await Promise.allSettled([...this.runs]);
  }

  private drain(key: string, state: { running: boolean; waiting: { resolve: (v: T) => void; reject: (e: unknown) => void }[]; work: () => Promise<T> }): void {
    const batch = state.waiting;
    state.waiting = [];
    state.running = true;
    const run = state.work().then(
      (value) => batch.forEach((w) => w.resolve(value)),
      (error: unknown) => batch.forEach((w) => w.reject(error)),
    );
    this.runs.add(run);
    void run.finally(() => {
      this.runs.delete(run);
      state.running = false;
      if (state.waiting.length > 0) this.drain(key, state);
      else this.keys.delete(key);
    });
  }
}
