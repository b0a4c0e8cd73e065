/**
 * What anchoring the runs' heads into their owner's chain cost in a bench (bench/load.bench.ts): the anchor
 * transactions sent and how many were cancelled (lost the chain head), the pending registrations of a group
 * commit (shared/store/anchor-group.ts), and Deliver's anchor calls that ran out of attempts (each fails its
 * Deliver: TransactionCanceledException is not among the errors its Retry names, so the Catch goes to
 * MarkFailed, which anchors the head again). Counted on the store's client and around `anchorRunHead`.
 */
import type { DeliverDeps } from '../shared/core/deliver.ts';
import type { DynamoStore } from '../shared/store/index.ts';

export type AnchorTraffic = {
  calls: number;
  failedCalls: number;
  anchorTransactions: number;
  anchorCancelled: number;
  registerTransactions: number;
  registerCancelled: number;
};

export const noAnchorTraffic = (): AnchorTraffic => ({
  calls: 0,
  failedCalls: 0,
  anchorTransactions: 0,
  anchorCancelled: 0,
  registerTransactions: 0,
  registerCancelled: 0,
});

/** Counts into `traffic` the anchor and register transactions `store` sends (by the items they name). */
export function countAnchorTransactions(store: DynamoStore, traffic: AnchorTraffic): void {
  store.ctx.doc.middlewareStack.add(
    (next) => async (args) => {
      const items = (args.input as { TransactItems?: unknown[] }).TransactItems;
      const text = items ? JSON.stringify(items) : '';
      const kind = text.includes('"ANCHORHEAD"')
        ? 'anchor'
        : text.includes('"ANCHORPENDING#')
          ? 'register'
          : undefined;
      if (kind) traffic[`${kind}Transactions`] += 1;
      try {
        return await next(args);
      } catch (error) {
        if (kind && (error as { name?: string }).name === 'TransactionCanceledException')
          traffic[`${kind}Cancelled`] += 1;
        throw error;
      }
    },
    { step: 'initialize', name: 'benchAnchorTraffic' },
  );
}

/** Wraps Deliver's store so each `anchorRunHead` call, and each that threw, is counted in `traffic`. */
export function countingAnchorCalls(traffic: AnchorTraffic) {
  return (deps: DeliverDeps): DeliverDeps => {
    const store = deps.store;
    const anchorRunHead: typeof store.anchorRunHead = async (run, at) => {
      traffic.calls += 1;
      try {
        return await store.anchorRunHead(run, at);
      } catch (error) {
        traffic.failedCalls += 1;
        throw error;
      }
    };
    // Every other member is the store's own, bound to it (its private fields keep working).
    const counted = new Proxy(store, {
      get(target, property) {
        if (property === 'anchorRunHead') return anchorRunHead;
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { ...deps, store: counted };
  };
}
