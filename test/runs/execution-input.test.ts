/**
 * The input a run's execution is started with (shared/runs/start-run.ts, runExecutionInput): the pointer, and
 * where the run's workflow head is only while a first turn can read it with the run and its first message.
 */
import { describe, expect, it } from 'vitest';
import { runExecutionInput } from '../../shared/runs/start-run.ts';

const fresh = {
  runId: 'run_0123456789abcdef0123456789abcdef',
  turn: 0,
  messageCount: 1,
  owner: 'team-a',
  workflowId: 'wf_a',
  trigger: { type: 'on_demand' as const, caller: 'test' },
};

describe('Function: runExecutionInput', () => {
  it('names the workflow head for a run at its start', () => {
    expect(runExecutionInput(fresh)).toEqual({
      runId: fresh.runId,
      turn: 0,
      segmentStartTurn: 0,
      headHint: { owner: 'team-a', workflowId: 'wf_a' },
    });
  });

  it.each([
    ['a run further on (a resume after a restart)', { turn: 3, messageCount: 6 }],
    ['a run with more than its first message', { messageCount: 2 }],
    [
      "a delegated job's run (its live policy is its grant)",
      { trigger: { type: 'job' as const, jobId: 'job_1', clientId: 'c1', grantId: 'g1' } },
    ],
  ])('names none for %s', (_, change) => {
    const input = runExecutionInput({ ...fresh, ...change } as typeof fresh);
    expect(input).not.toHaveProperty('headHint');
    expect(input).toMatchObject({ runId: fresh.runId, segmentStartTurn: input.turn });
  });
});
