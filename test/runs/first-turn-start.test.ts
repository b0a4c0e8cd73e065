/**
 * startRun creates an agent run with turn 0's reservation (shared/core/first-reservation.ts) and starts its first
 * execution, named after the run. When Step Functions refuses that start (StartExecution's documented errors:
 * https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html#API_StartExecution_Errors)
 * and no idempotency key lets a retried trigger find the run, nothing can ever spend the reservation: it is
 * given back. With a key, or after an error that may have started it (a throttle), it stays.
 */
import { type SFNClient, StateMachineDoesNotExist } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { ExecutionNotStartedError, startRun } from '../../shared/runs/index.ts';
import { sfnExecutions } from '../../shared/runtime/executions-sfn.ts';
import { FixedClock, minimalWorkflow, randomIds, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
const DAY = '2026-11-30';
const MACHINE = 'arn:aws:states:eu-west-1:123456789012:stateMachine:m';

/** Step Functions answering every StartExecution with `error`, or starting it when there is none. */
function stepFunctions(error?: Error) {
  const started: string[] = [];
  const client = {
    send: async (command: { input: { name?: string } }) => {
      if (error) throw error;
      started.push(command.input.name!);
      return { executionArn: `${MACHINE.replace(':stateMachine:', ':execution:')}:${command.input.name}` };
    },
  } as unknown as Pick<SFNClient, 'send'>;
  return { executions: sfnExecutions(client, MACHINE), started };
}

const refused = () =>
  new StateMachineDoesNotExist({ message: 'State Machine Does Not Exist', $metadata: {} });
// The SDK models no throttling class for Step Functions: it arrives as a service error of that name.
const throttled = () =>
  Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $fault: 'client', $metadata: {} });

async function start(error: Error | undefined, idempotencyKey?: string) {
  const { version } = await seedWorkflow(
    store,
    minimalWorkflow({ budget: { maxUsdPerRun: 1, maxUsdPerDay: 5 } }),
  );
  const runId = randomIds.next('run');
  const { executions, started } = stepFunctions(error);
  const outcome = await startRun(
    { store, executions, clock: new FixedClock(), ids: { next: () => runId } },
    {
      owner: version.owner,
      workflowId: version.workflowId,
      trigger: { type: 'on_demand', caller: 'test' },
      actor: 'owner:test',
      ...(idempotencyKey ? { idempotency: { scope: `api:${version.workflowId}`, key: idempotencyKey } } : {}),
    },
  ).catch((caught: unknown) => caught);
  const day = await store.getDaySpendDetail(version.owner, version.workflowId, DAY);
  return { outcome, run: await store.getRun(runId), day, started, runId };
}

describe('startRun and turn 0’s reservation', () => {
  it('creates the run holding it and starts the execution named after the run', async () => {
    // Act
    const { outcome, run, day, started, runId } = await start(undefined);

    // Assess
    expect(outcome).toMatchObject({ created: true });
    expect(started).toEqual([runId]);
    expect(run?.reservation).toMatchObject({ turn: 0, ahead: { executionName: runId } });
    expect(day).toEqual({ totalUsd: run!.reservation!.usd, reservedUsd: run!.reservation!.usd });
  });

  it('gives it back when the first execution was refused and no key can find the run again', async () => {
    // Act
    const { outcome, run, day, runId } = await start(refused());

    // Assess
    expect(outcome).toBeInstanceOf(ExecutionNotStartedError);
    expect(run).toMatchObject({ status: 'pending' });
    expect(run?.reservation).toBeUndefined();
    expect(day).toEqual({ totalUsd: 0, reservedUsd: 0 });
    const settled = (await store.listAudit(runId)).filter((entry) => entry.type === 'budget_settled');
    expect(settled.map((entry) => entry.data)).toEqual([
      expect.objectContaining({ turn: 0, actualUsd: 0, unused: true, notStarted: true }),
    ]);
  });

  it.each([
    ['the start may have happened (a throttle is not a refusal)', throttled(), undefined],
    ['a retried trigger with the same key may start it', refused(), 'key-1'],
  ])('keeps it when %s', async (_label, error, key) => {
    // Act
    const { outcome, run, day } = await start(error, key);

    // Assess
    expect(outcome).toBeInstanceOf(Error);
    expect(run?.reservation).toMatchObject({ turn: 0 });
    expect(day).toEqual({ totalUsd: run!.reservation!.usd, reservedUsd: run!.reservation!.usd });
  });
});
