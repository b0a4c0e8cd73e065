/**
 * The meter behind `npm run bench:cost-profile`: counts each DynamoDB request a client sends and prices it two
 * ways, as DynamoDB Local reports it (`ConsumedCapacity`) and by AWS's rules from the items it actually read
 * and wrote (request-units.ts). A write is priced from the items it touches, looked at before and after it
 * through `peek` (a client outside the meter). Requests that fail are metered as AWS bills them: a single-item
 * write whose condition was false costs write units; a canceled transaction is a request whose units AWS does
 * not document, counted apart (metered-command.ts, `writeOutcome`). Pure: the caller supplies `peek` and `send`.
 */
import {
  commandClass,
  readRequest,
  type WriteTarget,
  writeOutcome,
  writeRequest,
  writeTargets,
} from './metered-command.ts';
import {
  type IndexShape,
  type Item,
  indexWriteUnits,
  readUnits,
  type WriteRequest,
  writeUnits,
} from './request-units.ts';

export type MeterCounts = {
  reads: number;
  writes: number;
  localReadUnits: number;
  localWriteUnits: number;
  readUnits: number;
  writeUnits: number;
  indexWriteUnits: number;
  /** Single-item writes whose condition failed, and their units (also in `writes` and `writeUnits`). */
  failedWrites: number;
  failedWriteUnits: number;
  /** Canceled TransactWriteItems (also in `writes`; their units in no column). */
  canceledTransactions: number;
  /** Queries that read items they did not return (a filter): the rule cannot size those. */
  filteredReads: number;
};

const ZERO: MeterCounts = {
  reads: 0,
  writes: 0,
  localReadUnits: 0,
  localWriteUnits: 0,
  readUnits: 0,
  writeUnits: 0,
  indexWriteUnits: 0,
  failedWrites: 0,
  failedWriteUnits: 0,
  canceledTransactions: 0,
  filteredReads: 0,
};

/** One metered write, for tracing: what happened and the units each way. */
export type MeterTrace = {
  commandName: string;
  outcome: 'written' | 'conditionFailed' | 'canceled';
  local?: number;
  units: number;
  request?: WriteRequest;
  /** A canceled transaction's cancellation reason codes, in item order. */
  reasons?: (string | undefined)[];
};

export type RequestMeterOptions = {
  keyNames: readonly string[];
  indexes: readonly IndexShape[];
  /** The item stored under a key now, read outside the meter. */
  peek: (key: Item) => Promise<Item | undefined>;
  trace?: (entry: MeterTrace) => void;
};

type Capacity = { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
const localUnits = (capacity: Capacity) =>
  [capacity ?? []].flat().reduce((sum, part) => sum + (part.CapacityUnits ?? 0), 0);

export function createRequestMeter(options: RequestMeterOptions) {
  const { keyNames, indexes, peek } = options;
  let counts: MeterCounts = { ...ZERO };

  /** A write that threw: billed as AWS bills it (a failed condition), counted (canceled), or not metered. */
  function meterFailure(
    commandName: string,
    error: unknown,
    targets: readonly WriteTarget[],
    before: readonly (Item | undefined)[],
  ) {
    const outcome = writeOutcome(error);
    if (outcome === 'conditionFailed') {
      const request = writeRequest(commandName, targets, before, [], outcome);
      const units = writeUnits(request, indexes);
      counts.writes += 1;
      counts.failedWrites += 1;
      counts.writeUnits += units;
      counts.failedWriteUnits += units;
      options.trace?.({ commandName, outcome, units, request });
    } else if (outcome === 'canceled') {
      counts.writes += 1;
      counts.canceledTransactions += 1;
      const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
      options.trace?.({ commandName, outcome, units: 0, reasons: reasons.map((reason) => reason.Code) });
    }
  }

  return {
    counts: (): MeterCounts => ({ ...counts }),
    reset: () => {
      counts = { ...ZERO };
    },
    /** Sends one command through `send` and meters it; errors are metered as billed, then rethrown. */
    async measure<R extends { output: unknown }>(
      commandName: string,
      input: Record<string, unknown>,
      send: () => Promise<R>,
    ): Promise<R> {
      const kind = commandClass(commandName);
      if (kind === 'other') return send();
      const targets = kind === 'write' ? writeTargets(commandName, input, keyNames) : [];
      const before = await Promise.all(targets.map((target) => peek(target.key)));
      let result: R;
      try {
        result = await send();
      } catch (error) {
        if (kind === 'write') meterFailure(commandName, error, targets, before);
        throw error;
      }
      const output = result.output as Record<string, unknown> & { ConsumedCapacity?: Capacity };
      const local = localUnits(output.ConsumedCapacity);
      if (kind === 'read') {
        counts.reads += 1;
        counts.localReadUnits += local;
        counts.readUnits += readUnits(readRequest(commandName, input, output));
        if (typeof output.ScannedCount === 'number' && output.ScannedCount !== output.Count)
          counts.filteredReads += 1;
        return result;
      }
      const after = await Promise.all(
        targets.map((target) => (target.kind === 'update' ? peek(target.key) : undefined)),
      );
      const request = writeRequest(commandName, targets, before, after);
      const units = writeUnits(request, indexes);
      counts.writes += 1;
      counts.localWriteUnits += local;
      counts.writeUnits += units;
      for (const action of request.actions)
        for (const index of indexes) counts.indexWriteUnits += indexWriteUnits(action, index);
      options.trace?.({ commandName, outcome: 'written', local, units, request });
      return result;
    },
  };
}

export type RequestMeter = ReturnType<typeof createRequestMeter>;
