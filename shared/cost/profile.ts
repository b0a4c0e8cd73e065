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

export type CostProfile = {
  /** When and how the counts were measured. */
  measured: string;
  fixed: CountsPart;
  perTurn: CountsPart;
  perToolCall: CountsPart;
  perGatedTurn: CountsPart;
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
 */
export const MEASURED_PROFILE: CostProfile = {
  measured:
    "2026-12-03, npm run bench:cost-profile on the local stack (median of 3 runs per shape), request units by AWS's rule from the items sent and read, failed writes metered, run item under 1 KB, RequestApproval in one read and one write, the approval page in one read, the approval in one write, the first turn in one read",
  fixed: { transitions: 1, dynamoReads: 9, dynamoWrites: 4, readUnits: 10, writeUnits: 27 },
  perTurn: { transitions: 2, dynamoReads: 2, dynamoWrites: 1, readUnits: 2, writeUnits: 12 },
  perToolCall: { transitions: 0, dynamoReads: 0, dynamoWrites: 2, readUnits: 0, writeUnits: 13 },
  perGatedTurn: { transitions: 1, dynamoReads: 2, dynamoWrites: 3, readUnits: 4, writeUnits: 45 },
};
