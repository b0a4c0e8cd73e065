/**
 * The measured counts behind `wf cost`: what each part of a run costs in Step Functions state transitions and
 * DynamoDB requests and request units, as `npm run bench:cost-profile` measured them on the local stack
 * (the synthesized state machine, the real handlers; request units by AWS's rules from actual item sizes).
 * Re-run the bench and paste its JSON here when the runtime's requests change.
 */

/** Counts for one part of a run. Request units are DynamoDB's on-demand read and write request units. */
export type CountsPart = {
  transitions: number;
  dynamoReads: number;
  dynamoWrites: number;
  readUnits: number;
  writeUnits: number;
};

/** The four parts of a run: fixed, per model turn, per allowed tool call, per gated call. */
export type RunParts = {
  fixed: CountsPart;
  perTurn: CountsPart;
  perToolCall: CountsPart;
  perGatedTurn: CountsPart;
};

/** How a run starts: the API (`POST /v1/workflows/{id}/runs`), or the StartRun function for a schedule or an event. */
export type RunStart = 'api' | 'schedule' | 'event';

export type CostProfile = RunParts & {
  /** When and how the counts were measured. */
  measured: string;
  /**
   * A new Turn container for every turn (`wf cost --cold-turns`), added to the parts above: per turn, the workflow
   * version the container does not hold yet; per transcript message a turn reads that the container that wrote
   * it would hold (run-cost.ts `coldMessageReads` counts them).
   */
  coldTurns: { perTurn: CountsPart; perMessageRead: CountsPart };
  /** A run a schedule or an event starts through StartRun (`wf cost --trigger`), added to the API start's parts. */
  triggerStart: Record<Exclude<RunStart, 'api'>, RunParts>;
};

/**
 * Measured 2026-12-02 by `npm run bench:cost-profile` (each shape the median of 3 runs): requests as the local
 * stack made them (the local stack's commit barrier reads, which AWS does not need, excluded); request units by
 * AWS's documented rules from the items actually read and written (shared/cost/request-units.ts), not DynamoDB
 * Local's consumed capacity, which bills transactions differently (it rounds a transaction's items up together
 * and doubles index writes). Failed requests are metered as AWS bills them (shared/cost/request-meter.ts): a
 * single-item write whose condition failed costs its write units, a canceled transaction is counted in
 * `dynamoWrites` only (none happened: the start path no longer writes the execution ARN, so turn 0's first
 * commit no longer loses a race to it). A turn reads its run and transcript in one Query; turn 0's budget
 * reservation is written with the run's creation; the run ends with `Deliver` (End: true, no Succeed state): 1
 * fixed transition. The run item stays under 1 KB in a plain run (docs/data-model.md "Run item size"): a
 * commit costs 4 WRU for it (table and both indexes), not 8. Re-measured 2026-12-03 (only the gated part moved):
 * the approval page reads the approval, its run and its workflow head in one BatchGetItem, and the approval no
 * longer reads the head after its commit but checks it in the commit (a ConditionCheck: 2 WRU, where the read was
 * 1 RRU), so a gated call reads 5 → 2 times (7 → 6 RRU) and writes 43 → 45 WRU. Re-measured 2026-12-03 (only
 * the fixed part moved): an API start with an Idempotency-Key, as the bench makes, now also puts the pending-run
 * marker in its creation transaction and deletes it in turn 0's first commit (shared/store/pending-runs.ts), a
 * transactional write of a ~120-byte item each: 2 WRU each, 23 → 27 WRU, in the same requests. Re-measured
 * 2026-12-03 13:40 UTC (only the fixed part's read units moved): a run's first turn reads the run, its first
 * message and the workflow head in one BatchGetItem (shared/store/turn-read.ts), which rounds each item up to
 * a unit where the Query of the run and message and the GetItem of the head made 2: 9 → 10 RRU. The bench's later
 * turns read 1 time (the run and head by key, in the container that wrote the transcript); the profile keeps 2
 * per turn, since on AWS that depends on Lambda reusing the container. Re-measured 2026-12-03 15:27 UTC (only the
 * gated part's read units moved, the counts as before): the approval's decision commits on the approval and run
 * its form carries (shared/approvals-http/form-state.ts) on any container, so the profile no longer keeps the
 * decision's read of the approval and its run that a decision on another container than its page's made
 * (2 RRU): 6 → 4 RRU, as measured.
 * Re-measured 2026-12-04 13:13 UTC (only the four parts' write units moved; the requests, the read units,
 * `coldTurns` and `triggerStart` as before, and main re-run the same hour gave the counts above before it): audit
 * items are compact (shared/store/audit-items.ts), so a turn commit's audit item crosses fewer KB; the run item's
 * Update and the settle's are billed like the Puts they replace. The five-turn run's shape (r5) 139 → 129 WRU;
 * the parts 27 / 12 / 13 / 45 → 28 / 11 / 11 / 42 WRU (fixed / per turn / per tool call / per gated call; the
 * solved fixed part takes the unit the shapes' rounding gives it).
 *
 * Measured 2026-12-03 23:05 UTC (the four parts above unchanged, the same in three runs of the bench that day):
 * `coldTurns` and `triggerStart`, from the same shapes run each way (the bench's tables "each shape minus the API
 * start's"). Cold turns (the local stack's `newTurnContainer`: every turn on a new container): +1 read and 1 RRU
 * per turn, the workflow version's GetItem (a version under 4 KB, as the bench's); +1 RRU per transcript message
 * a turn reads that its container would hold warm (`coldMessageReads` in run-cost.ts: 0, 8, 8, 0 and 24 messages
 * in r1–r5, predicting the measured 1, 11, 11, 2 and 29 RRU more exactly), each message one BatchGetItem item
 * (strongly consistent, under 4 KB). The profile's part keeps `dynamoReads: 0` there: `perTurn` above keeps 2
 * requests per turn already (measured warm: 1), which is what a new container makes (the BatchGetItem and the
 * version's GetItem). A schedule's start (StartRun): 4 WRU more, once: its trigger (`scheduleName`,
 * `scheduledTime`) makes the run item 981 bytes where an API start's is 956, so the final answer's commit takes it
 * past 1 KB (1,027 bytes): 10 WRU for that commit where the API start's pays 6 (the item, and each index, one
 * unit more). An event's start: 8 WRU fixed, 4 per turn and per tool call more: the run item holds the event as
 * its input (EventBridge's whole envelope, ~300 bytes with the bench's small `detail`: 1,228 bytes at creation),
 * so every commit of it pays 2 units for it in the table and 1 in each index more; a larger event moves it past
 * the next KB too. No request more either way; the pending-run marker is written and deleted as in a keyed API
 * start (pending-runs.ts), which the parts above already count.
 */
const NONE: CountsPart = { transitions: 0, dynamoReads: 0, dynamoWrites: 0, readUnits: 0, writeUnits: 0 };

export const MEASURED_PROFILE: CostProfile = {
  measured:
    "2026-12-04, npm run bench:cost-profile on the local stack (median of 3 runs per shape), request units by AWS's rule from the items sent and read, failed writes metered, run item under 1 KB, RequestApproval in one read and one write, the approval page in one read, the approval in one write, the first turn in one read, compact audit items",
  fixed: { transitions: 1, dynamoReads: 9, dynamoWrites: 4, readUnits: 10, writeUnits: 28 },
  perTurn: { transitions: 2, dynamoReads: 2, dynamoWrites: 1, readUnits: 2, writeUnits: 11 },
  perToolCall: { transitions: 0, dynamoReads: 0, dynamoWrites: 2, readUnits: 0, writeUnits: 11 },
  perGatedTurn: { transitions: 1, dynamoReads: 2, dynamoWrites: 3, readUnits: 4, writeUnits: 42 },
  coldTurns: {
    perTurn: { transitions: 0, dynamoReads: 0, dynamoWrites: 0, readUnits: 1, writeUnits: 0 },
    perMessageRead: { transitions: 0, dynamoReads: 0, dynamoWrites: 0, readUnits: 1, writeUnits: 0 },
  },
  triggerStart: {
    schedule: {
      fixed: { transitions: 0, dynamoReads: 0, dynamoWrites: 0, readUnits: 0, writeUnits: 4 },
      perTurn: NONE,
      perToolCall: NONE,
      perGatedTurn: NONE,
    },
    event: {
      fixed: { transitions: 0, dynamoReads: 0, dynamoWrites: 0, readUnits: 0, writeUnits: 8 },
      perTurn: { transitions: 0, dynamoReads: 0, dynamoWrites: 0, readUnits: 0, writeUnits: 4 },
      perToolCall: { transitions: 0, dynamoReads: 0, dynamoWrites: 0, readUnits: 0, writeUnits: 4 },
      perGatedTurn: NONE,
    },
  },
};
