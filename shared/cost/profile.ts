/**
 * The measured counts behind `wf cost`: what each part of a run costs in Step Functions state transitions and
 * DynamoDB requests and request units, as `npm run bench:cost-profile` measured them on the local stack
 * (the synthesized state machine, the real handlers, DynamoDB Local's consumed capacity by actual item sizes).
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
 * Measured 2026-12-01 by `npm run bench:cost-profile` (DynamoDB Local consumed capacity; the local stack's commit
 * barrier reads, which AWS does not need, excluded).
 */
export const MEASURED_PROFILE: CostProfile = {
  measured:
    '2026-12-01, npm run bench:cost-profile on the local stack, after the next reservation rode on the turn commit',
  fixed: { transitions: 2, dynamoReads: 10, dynamoWrites: 6, readUnits: 8.5, writeUnits: 36 },
  perTurn: { transitions: 2, dynamoReads: 3, dynamoWrites: 1, readUnits: 3.5, writeUnits: 17 },
  perToolCall: { transitions: 0, dynamoReads: 0, dynamoWrites: 2, readUnits: 0, writeUnits: 9 },
  perGatedTurn: { transitions: 1, dynamoReads: 11, dynamoWrites: 4, readUnits: 11.5, writeUnits: 33 },
};
