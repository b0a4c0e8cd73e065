/**
 * A value loaded at most once per `maxAgeMs` (single flight: concurrent callers share one load), with a
 * forced `refresh()` for when a caller has evidence the value changed (a signature made with a key we do not
 * hold, a 401 from the model API). Forced refreshes are rate-limited (`minRefreshIntervalMs`), so a flood of
 * forged links cannot turn into a flood of secret reads. A failed load is not cached.
 */
export type TtlCacheOptions = {
  /** How long a loaded value is served before the next `get()` loads it again. */
  maxAgeMs: number;
  /** A forced refresh within this long of the last load serves the cached value. @default 10_000 */
  minRefreshIntervalMs?: number;
  nowMs: () => number;
};

export interface TtlCache<T> {
  /** The value, loaded if none is cached or the cached one is older than `maxAgeMs`. */
  get(): Promise<T>;
  /** Loads the value now (unless one was loaded within `minRefreshIntervalMs`). */
  refresh(): Promise<T>;
}

/** A TTL cache over `load`; `load(force)` is told whether the load was forced (to bypass lower caches). */
export function ttlCache<T>(load: (force: boolean) => Promise<T>, options: TtlCacheOptions): TtlCache<T> {
  const minRefresh = options.minRefreshIntervalMs ?? 10_000;
  let cached: { value: T; at: number } | undefined;
  let inflight: Promise<T> | undefined;
  const start = (force: boolean): Promise<T> => {
    inflight ??= load(force)
      .then((value) => {
        cached = { value, at: options.nowMs() };
        return value;
      })
      .finally(() => {
        inflight = undefined;
      });
    return inflight;
  };
  return {
    get() {
      if (cached && options.nowMs() - cached.at < options.maxAgeMs) return Promise.resolve(cached.value);
      return start(false);
    },
    refresh() {
      if (cached && options.nowMs() - cached.at < minRefresh) return Promise.resolve(cached.value);
      return start(true);
    },
  };
}
