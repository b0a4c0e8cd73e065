/**
 * A retried graph step runs in a fresh execution; the execution it replaces has already failed, and Step
 * Functions' "execution ended" event for it can reach MarkFailed at any time. Handled between the reopen commit
 * and the new execution's start, it must not end the reopened run: the reopen commit itself records the new
 * execution's (deterministic) ARN, so the old one is no longer the run's current execution.
 */
import { describe, expect, it } from 'vitest';
import { createMarkFailedHandler } from '../../functions/mark-failed.ts';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { completeStep } from '../../shared/graph-run/complete-step.ts';
import { graphDefinitions } from '../../shared/graph-run/definitions.ts';
import { retryGraphStep } from '../../shared/graph-run/operations.ts';
import { humanTaskExpiry } from '../../shared/human-tasks/expiry.ts';
import { handlerTelemetry } from '../../shared/runtime/telemetry.ts';
import { FixedClock, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { reviewGraph } from './fixtures.ts';

const store = testStore();
const MACHINE = 'arn:aws:states:eu-west-1:123456789012:stateMachine:wf-graphs';
const arnOf = (name: string) => `${MACHINE.replace(':stateMachine:', ':execution:')}:${name}`;
const endedEvent = (runId: string, name: string) => ({
  source: 'aws.states',
  'detail-type': 'Step Functions Execution Status Change',
  detail: {
    executionArn: arnOf(name),
    stateMachineArn: MACHINE,
    name,
    status: 'FAILED',
    input: JSON.stringify({ runId }),
  },
});

describe('retrying a failed graph step', () => {
  it('is not ended by a late FAILED event of the execution it replaces', async () => {
    const clock = new FixedClock();
    const { version } = await seedWorkflow(store, reviewGraph('retry-late-event', 'manager@example.com'), {
      clock,
    });
    const run = await seedRun(store, version, { clock });
    const graph = { store, definitionOf: graphDefinitions(store), clock };
    await advanceGraphRun(graph, run.runId);
    const ref = { runId: run.runId, stepId: 'review', type: 'human_task' as const, attempt: 1 };
    await completeStep(
      { ...graph, humanTasks: humanTaskExpiry({ store, clock }) },
      { ...ref, error: { Error: 'States.Timeout' } },
    );
    const markFailed = createMarkFailedHandler(() => ({ store, clock }), handlerTelemetry());
    // The graph machine's Fail path: MarkFailed ends the run, then its execution ends FAILED.
    await markFailed({ runId: run.runId });
    expect((await store.getRun(run.runId))?.status).toBe('failed');

    const started: string[] = [];
    const executions = {
      start: async () => ({ executionArn: 'unused' }),
      stop: async () => {},
      arnOf: (_kind: unknown, name: string) => arnOf(name),
      graph: {
        // The old execution's (named after the run) FAILED event is handled before the new one has started.
        start: async (name: string) => {
          await markFailed(endedEvent(run.runId, run.runId));
          started.push(name);
          return { executionArn: arnOf(name) };
        },
      },
    };
    const retried = await retryGraphStep(
      { store, executions, clock, taskTokens: { sendSuccess: async () => 'sent' } },
      { owner: run.owner, runId: run.runId, actor: `owner:${run.owner}`, stepId: 'review' },
    );
    expect(started).toHaveLength(1);
    const stored = await store.getRun(run.runId);
    expect(stored?.status).toBe('running');
    expect(stored?.executionArn).toBe(arnOf(started[0]!));
    expect(retried?.executionArn).toBe(stored?.executionArn);
  });
});
