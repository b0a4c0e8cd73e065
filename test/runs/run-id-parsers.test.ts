/**
 * What reads a run id out of an execution's input (the execution-ended rule's event, the jobs sweep's run-ended
 * event) or a link's `run` hint takes exactly the ids the runtime makes (shared/schemas/run-id.ts): `run_` and 32
 * lowercase hex digits, from `randomIds` or a graph step's `childRunIdFor`. Before, they took other lengths and
 * characters (`{6,60}`; the sweep also `_` and `-`), so a continuation's execution name or a crafted input
 * passed for a run id.
 */
import { describe, expect, it } from 'vitest';
import { childRunIdFor } from '../../shared/graph-run/wait.ts';
import { sweepRequestOf } from '../../shared/jobs/sweep-event.ts';
import { endedExecutionOf } from '../../shared/runs/execution-ended.ts';
import { randomIds } from '../../shared/runtime/clock.ts';
import { GENERATED_RUN_ID } from '../../shared/schemas/run-id.ts';

const HEX32 = '0123456789abcdef0123456789abcdef';

/** Step Functions' status-change event for an execution whose input carries `runId`. */
const statusChange = (runId: unknown) => ({
  source: 'aws.states',
  'detail-type': 'Step Functions Execution Status Change',
  detail: {
    executionArn: 'arn:aws:states:eu-west-1:123456789012:execution:Runs:x',
    stateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:Runs',
    name: 'x',
    status: 'FAILED',
    input: JSON.stringify({ runId }),
  },
});

const HOSTILE: [string, unknown][] = [
  ['31 digits', `run_${HEX32.slice(1)}`],
  ['33 digits', `run_${HEX32}0`],
  ['upper-case hex', `run_${HEX32.toUpperCase()}`],
  ['a letter past f', `run_${HEX32.slice(1)}g`],
  ['the old shortest', 'run_abc123'],
  ['a continuation execution name', `run_${HEX32}-c3-0123456789abcdef0123456789abcdef`],
  ['a trailing newline', `run_${HEX32}\n`],
  ['a leading space', ` run_${HEX32}`],
  ['another prefix', `RUN_${HEX32}`],
  ['a path', `run_${HEX32.slice(0, 28)}/../`],
  ['a key separator', `run_${HEX32.slice(0, 31)}#`],
  ['an underscore', `run_${HEX32.slice(0, 31)}_`],
  ['full-width digits', `run_${'０'.repeat(32)}`],
  ['no digits', 'run_'],
  ['a number', 42],
  ['an object', { toString: () => `run_${HEX32}` }],
  ['prototype key', '__proto__'],
];

describe('Run ids read from events and links', () => {
  it('are the shape the runtime makes: random ids and graph child ids', () => {
    for (let i = 0; i < 50; i++) expect(randomIds.next('run')).toMatch(GENERATED_RUN_ID);
    expect(childRunIdFor(randomIds.next('run'), 'step-1', 2)).toMatch(GENERATED_RUN_ID);
  });

  it('are read from a generated id', () => {
    const runId = randomIds.next('run');
    expect(endedExecutionOf(statusChange(runId))?.runId).toBe(runId);
    expect(sweepRequestOf(statusChange(runId))).toEqual({ kind: 'run_ended', runId });
  });

  it.each(HOSTILE)('are refused: %s', (_what, runId) => {
    expect(typeof runId === 'string' && GENERATED_RUN_ID.test(runId)).toBe(false);
    // The execution-ended rule ignores the event; the sweep falls back to sweeping every grant.
    expect(endedExecutionOf(statusChange(runId))).toBeUndefined();
    expect(sweepRequestOf(statusChange(runId))).toEqual({ kind: 'all' });
  });
});
