/**
 * startRun creates an agent run with turn 0's reservation (shared/core/first-reservation.ts) and starts its first
 * execution, named after the run. A run created without an idempotency key cannot be found by a retried trigger,
 * so a failed start is settled by the call that created it:
 * - refused (StartExecution's documented errors:
 *   https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html#API_StartExecution_Errors):
 *   no execution exists; the run is ended `failed` with the reservation given back, in one commit, and
 *   RunNotStartedError names it;
 * - uncertain (a throttle, a timeout): the start is tried again (idempotent by name for Standard workflows), then
 *   DescribeExecution says whether an earlier attempt started it; an execution that does not exist ends the run
 *   as a refusal does, one that exists is the run's; when nothing can say, the run stays `pending` and counted.
 * With a key, a retried trigger may start it: the run and its reservation stay.
 */
import { ExecutionDoesNotExist, type SFNClient, StateMachineDoesNotExist } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import {
  ExecutionNotStartedError,
  RunNotStartedError,
  RunStartPendingError,
  START_RETRIES,
  startRun,
} from '../../shared/runs/index.ts';
import { sfnExecutions } from '../../shared/runtime/executions-sfn.ts';
import { FixedClock, minimalWorkflow, randomIds, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
const DAY = '2026-11-30';
const MACHINE = 'arn:aws:states:eu-west-1:123456789012:stateMachine:m';

type Answer = Error | 'started' | 'missing' | 'exists';

/**
 * Step Functions answering StartExecution with `starts` in turn (the last one for every later call; `started`:
 * started) and DescribeExecution with `describe` (`missing`: ExecutionDoesNotExist; `exists`: the execution).
 */
function stepFunctions(starts: Answer | Answer[] = 'started', describe: Answer = 'missing') {
  const started: string[] = [];
  const calls: string[] = [];
  const answers = [starts].flat();
  const client = {
    send: async (command: {
      constructor: { name: string };
      input: { name?: string; executionArn?: string };
    }) => {
      const kind = command.constructor.name;
      calls.push(kind);
      const answer =
        kind === 'DescribeExecutionCommand' ? describe : (answers.length > 1 ? answers.shift() : answers[0])!;
      if (answer instanceof Error) throw answer;
      if (answer === 'missing')
        throw new ExecutionDoesNotExist({ message: 'Execution Does Not Exist', $metadata: {} });
      if (kind === 'DescribeExecutionCommand')
        return { executionArn: command.input.executionArn, status: 'RUNNING' };
      started.push(command.input.name!);
      return { executionArn: `${MACHINE.replace(':stateMachine:', ':execution:')}:${command.input.name}` };
    },
  } as unknown as Pick<SFNClient, 'send'>;
  return { executions: sfnExecutions(client, MACHINE), started, calls };
}

const refused = () =>
  new StateMachineDoesNotExist({ message: 'State Machine Does Not Exist', $metadata: {} });
// The SDK models no throttling class for Step Functions: it arrives as a service error of that name.
const throttled = () =>
  Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $fault: 'client', $metadata: {} });

async function start(starts: Answer | Answer[] | undefined, idempotencyKey?: string, describe?: Answer) {
  const { version } = await seedWorkflow(
    store,
    minimalWorkflow({ budget: { maxUsdPerRun: 1, maxUsdPerDay: 5 } }),
  );
  const runId = randomIds.next('run');
  const { executions, started, calls } = stepFunctions(starts ?? 'started', describe);
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
  return { outcome, run: await store.getRun(runId), day, started, calls, runId };
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

  it('ends the run failed and gives it back in one commit when the first execution was refused and no key can find the run', async () => {
    // Act
    const { outcome, run, day, runId, calls } = await start(refused());

    // Assess: the caller is told the run's id and that it was ended.
    expect(outcome).toBeInstanceOf(RunNotStartedError);
    expect(outcome).toMatchObject({ runId, cause: expect.any(ExecutionNotStartedError) });
    expect(calls).toEqual(['StartExecutionCommand']);
    expect(run).toMatchObject({
      status: 'failed',
      stopReason: 'error',
      error: {
        name: 'ExecutionNotStarted',
        message: expect.stringContaining('State Machine Does Not Exist'),
      },
    });
    expect(run?.reservation).toBeUndefined();
    expect(day).toEqual({ totalUsd: 0, reservedUsd: 0 });
    const entries = await store.listAudit(runId);
    const settled = entries.filter((entry) => entry.type === 'budget_settled');
    expect(settled.map((entry) => entry.data)).toEqual([
      expect.objectContaining({ turn: 0, actualUsd: 0, unused: true, notStarted: true }),
    ]);
    // One commit: the release, the error and the status change follow the run's creation by one revision.
    expect(run?.rev).toBe(1);
    expect(entries.at(-1)).toMatchObject({
      type: 'status_changed',
      data: { from: 'pending', to: 'failed', stopReason: 'error' },
    });
  });

  it('tries a throttled start again, and the run runs when a retry starts it', async () => {
    // Act
    const { outcome, run, started, runId, day } = await start([throttled(), 'started']);

    // Assess
    expect(outcome).toMatchObject({ created: true });
    expect(started).toEqual([runId]);
    expect(run).toMatchObject({ status: 'pending', reservation: { turn: 0 } });
    expect(day).toEqual({ totalUsd: run!.reservation!.usd, reservedUsd: run!.reservation!.usd });
  });

  it('ends the run failed when every start was throttled and DescribeExecution says none exists', async () => {
    // Act
    const { outcome, run, day, runId, calls } = await start(throttled(), undefined, 'missing');

    // Assess
    expect(outcome).toBeInstanceOf(RunNotStartedError);
    expect(outcome).toMatchObject({ runId, message: expect.stringContaining(runId) });
    expect(calls).toEqual([
      ...Array.from({ length: 1 + START_RETRIES }, () => 'StartExecutionCommand'),
      'DescribeExecutionCommand',
    ]);
    expect(run).toMatchObject({
      status: 'failed',
      error: { message: expect.stringContaining('Rate exceeded') },
    });
    expect(day).toEqual({ totalUsd: 0, reservedUsd: 0 });
  });

  it('keeps the run when a throttled start turns out to have started it', async () => {
    // Act
    const { outcome, run, day } = await start(throttled(), undefined, 'exists');

    // Assess
    expect(outcome).toMatchObject({ created: true });
    expect(run).toMatchObject({ status: 'pending', reservation: { turn: 0 } });
    expect(day).toEqual({ totalUsd: run!.reservation!.usd, reservedUsd: run!.reservation!.usd });
  });

  it.each([
    [
      'nothing can say whether it started (the describe is throttled too)',
      throttled(),
      undefined,
      throttled(),
      'ThrottlingException',
    ],
    [
      'a retried trigger with the same key may start it',
      refused(),
      'key-1',
      'missing' as const,
      // The port's refusal (ExecutionsPort.start): no execution of that name exists.
      'ExecutionNotStartedError',
    ],
  ])('keeps it when %s', async (_label, error, key, describe, causeName) => {
    // Act
    const { outcome, run, day, runId } = await start(error, key, describe);

    // Assess: the caller is told the run is pending, its id, whether a repeat finds it, and the start's error.
    expect(outcome).toBeInstanceOf(RunStartPendingError);
    expect(outcome).toMatchObject({ runId, keyed: key !== undefined, cause: { name: causeName } });
    expect(run).toMatchObject({ status: 'pending', reservation: { turn: 0 } });
    expect(day).toEqual({ totalUsd: run!.reservation!.usd, reservedUsd: run!.reservation!.usd });
  });
});
