/**
 * A run's first execution is named after the run, and Step Functions derives an execution's ARN from its state
 * machine and name (https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html), so
 * startRun writes nothing after the start (shared/runs/execution-arn.ts): before, it recorded the ARN with a
 * second write of the run item, which turn 0's first commit could lose a race to. Runs of the previous release,
 * whose ARN is recorded, keep working: stopped by the recorded ARN, not started again.
 */
import type { SFNClient } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import {
  cancelRun,
  type ExecutionsPort,
  runExecutionArn,
  type StartRunRequest,
  startRun,
} from '../../shared/runs/index.ts';
import { sfnExecutions } from '../../shared/runtime/executions-sfn.ts';
import { FixedClock, minimalWorkflow, randomIds, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
const MACHINE = 'arn:aws:states:eu-west-1:123456789012:stateMachine:m';
const arnOf = (name: string) => `arn:aws:states:eu-west-1:123456789012:execution:m:${name}`;

/** Step Functions recording each StartExecution's name and each StopExecution's ARN. */
function stepFunctions() {
  const started: string[] = [];
  const stopped: string[] = [];
  const client = {
    send: async (command: { input: { name?: string; executionArn?: string } }) => {
      if (command.input.executionArn) stopped.push(command.input.executionArn);
      else started.push(command.input.name!);
      return command.input.name ? { executionArn: arnOf(command.input.name) } : {};
    },
  } as unknown as Pick<SFNClient, 'send'>;
  return { executions: sfnExecutions(client, MACHINE), started, stopped };
}

async function request(key: string): Promise<StartRunRequest> {
  const { version } = await seedWorkflow(store, minimalWorkflow());
  return {
    owner: version.owner,
    workflowId: version.workflowId,
    trigger: { type: 'on_demand', caller: 'test', idempotencyKey: key },
    actor: 'owner:test',
    idempotency: { scope: `api:${version.workflowId}`, key },
  };
}

const deps = (executions: ExecutionsPort, runId = randomIds.next('run')) => ({
  store,
  executions,
  clock: new FixedClock(),
  ids: { next: () => runId },
});

describe('a run’s first execution ARN, derived instead of written', () => {
  it('starts the execution named after the run and writes nothing after the start', async () => {
    // Arrange
    const sfn = stepFunctions();

    // Act
    const { run } = await startRun(deps(sfn.executions), await request('k1'));

    // Assess: the run item is as its creation wrote it (one revision, no ARN), the ARN known all the same
    const stored = await store.getRun(run.runId);
    expect(sfn.started).toEqual([run.runId]);
    expect(stored).toMatchObject({ rev: run.rev, status: 'pending' });
    expect(stored?.executionArn).toBeUndefined();
    expect(runExecutionArn(sfn.executions, stored!)).toBe(arnOf(run.runId));
  });

  it('stops the derived execution when the run is cancelled', async () => {
    // Arrange
    const sfn = stepFunctions();
    const { run } = await startRun(deps(sfn.executions), await request('k2'));

    // Act
    await cancelRun(deps(sfn.executions), { owner: run.owner, runId: run.runId, actor: 'owner:test' });

    // Assess
    expect(sfn.stopped).toEqual([arnOf(run.runId)]);
  });

  it('starts a still pending run again on a repeated trigger, by the same name (idempotent), writing nothing', async () => {
    // Arrange
    const sfn = stepFunctions();
    const repeated = await request('k3');
    const first = await startRun(deps(sfn.executions), repeated);

    // Act
    const again = await startRun(deps(sfn.executions, randomIds.next('run')), repeated);

    // Assess
    expect(again).toMatchObject({ created: false, run: { runId: first.run.runId, rev: first.run.rev } });
    expect(sfn.started).toEqual([first.run.runId, first.run.runId]);
  });

  it('does not start a run its execution has moved on a repeated trigger', async () => {
    // Arrange: turn 0 committed (the run left `pending`)
    const sfn = stepFunctions();
    const repeated = await request('k5');
    const { run } = await startRun(deps(sfn.executions), repeated);
    await store.commit({ run, next: { ...run, status: 'running' } });

    // Act
    const again = await startRun(deps(sfn.executions, randomIds.next('run')), repeated);

    // Assess
    expect(again).toMatchObject({ created: false, run: { status: 'running' } });
    expect(sfn.started).toEqual([run.runId]);
  });

  it('keeps a previous-release run’s recorded ARN: not started again, stopped by that ARN', async () => {
    // Arrange: a port that cannot derive ARNs records the started one, as the previous release did
    const recorded = `${arnOf('elsewhere')}`;
    const legacy: ExecutionsPort = {
      start: async () => ({ executionArn: recorded }),
      stop: async () => {},
    };
    const repeated = await request('k4');
    const { run } = await startRun(deps(legacy), repeated);
    expect((await store.getRun(run.runId))?.executionArn).toBe(recorded);
    const sfn = stepFunctions();

    // Act
    const again = await startRun(deps(sfn.executions, randomIds.next('run')), repeated);
    await cancelRun(deps(sfn.executions), { owner: run.owner, runId: run.runId, actor: 'owner:test' });

    // Assess
    expect(again).toMatchObject({ created: false, run: { runId: run.runId } });
    expect(sfn.started).toEqual([]);
    expect(sfn.stopped).toEqual([recorded]);
  });
});
