/**
 * A run id as the runtime makes one: `run_` and 32 lowercase hex digits. `randomIds` draws 16 random bytes
 * (shared/runtime/clock.ts, `ids.next('run')` in shared/core/new-run.ts); a graph step's child run takes the first
 * 32 digits of a SHA-256 (`childRunIdFor`, shared/graph-run/wait.ts). What reads a run id out of an execution's
 * input, an EventBridge event or a link takes exactly this shape and nothing else: no other character reaches a
 * key, a log line or an execution name from there.
 */
export const GENERATED_RUN_ID = /^run_[0-9a-f]{32}$/;
