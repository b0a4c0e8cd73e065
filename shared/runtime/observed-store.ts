/**
 * A store that reports what passes through it: the runs it reads and the changes it commits. The handler
 * shells derive logs, metrics and trace annotations from these, so the core needs no telemetry port.
 */
import type { RunChange, RunStore, TurnReadOptions } from '../core/store-port.ts';
import type { Run } from '../schemas/run.ts';

/** Callbacks of `observeStore`; they run after the store call succeeded and must not throw. */
export type StoreObserver = {
  /**
   * A run was read: its owner and ids are now known to the invocation. `getRun` reports every run it finds, so
   * a caller that then checks the owner (an API route) reads with `getOwnRun` instead, which reports only the
   * caller's own runs.
   */
  runRead?(run: Run): void;
  /** A change was committed (`run` is the committed item). Never called for a refused change. */
  committed?(change: RunChange, run: Run): void;
};

type OwnRunRead = (owner: string, runId: string) => Promise<Run | undefined>;

/**
 * The same store (every method, the same type) with `getRun`, `getOwnRun` (and the run
 * `getApprovalWithRun`, `getRunWithApprovals` or `getRunWithMessages` returns) and `commit` reported to each observer.
 *
 * @example
 * const store = observeStore(new DynamoStore({ tableName }), { committed: (change) => count(change) });
 */
export function observeStore<S extends RunStore>(store: S, ...observers: StoreObserver[]): S {
  const getRun = async (runId: string): Promise<Run | undefined> => {
    const run = await store.getRun(runId);
    if (run) for (const observer of observers) observer.runRead?.(run);
    return run;
  };
  // The approval pages read a run with its approval in one request: that is a run read too.
  const getApprovalWithRun = async (
    approvalId: string,
    runIdHint?: string,
    headHint?: { owner: string; workflowId: string },
  ) => {
    const both = await store.getApprovalWithRun?.(approvalId, runIdHint, headHint);
    if (both?.run) for (const observer of observers) observer.runRead?.(both.run);
    return both;
  };
  // RequestApproval reads a run with its approvals in one request: that is a run read too.
  const getRunWithApprovals = async (runId: string, approvalIds: readonly string[]) => {
    const both = await store.getRunWithApprovals!(runId, approvalIds);
    if (both.run) for (const observer of observers) observer.runRead?.(both.run);
    return both;
  };
  // A turn reads its run with the transcript in one request: that is a run read too.
  const readBoth = store.getRunWithMessages?.bind(store);
  const getRunWithMessages =
    readBoth &&
    (async (runId: string, headHint?: { owner: string; workflowId: string }, options?: TurnReadOptions) => {
      const read = await readBoth(runId, headHint, options);
      if (read.run) for (const observer of observers) observer.runRead?.(read.run);
      return read;
    });
  const commit = async (change: RunChange): Promise<Run> => {
    const run = await store.commit(change);
    for (const observer of observers) observer.committed?.(change, run);
    return run;
  };
  // An owner-scoped read reports only the caller's own run: a foreign id adds to the logs what a missing one does.
  const readOwn = (store as { getOwnRun?: OwnRunRead }).getOwnRun?.bind(store);
  const getOwnRun =
    readOwn &&
    (async (owner: string, runId: string) => {
      const run = await readOwn(owner, runId);
      if (run) for (const observer of observers) observer.runRead?.(run);
      return run;
    });
  return new Proxy(store, {
    get(target, property) {
      if (property === 'getRun') return getRun;
      if (property === 'getOwnRun' && getOwnRun) return getOwnRun;
      if (property === 'commit') return commit;
      if (property === 'getApprovalWithRun' && store.getApprovalWithRun) return getApprovalWithRun;
      if (property === 'getRunWithMessages' && getRunWithMessages) return getRunWithMessages;
      if (property === 'getRunWithApprovals' && store.getRunWithApprovals) return getRunWithApprovals;
      const value: unknown = Reflect.get(target, property, target);
      // Bound to the real store, so its private fields keep working.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
