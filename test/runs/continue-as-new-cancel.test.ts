/**
 * Cancelling a run that continued as new, on the local stack (DynamoDB Local, the synthesized run machine on the
 * local Step Functions). The run machine's ContinueAsNew starts `<runId>-c<turn>-<md5>` and ends the execution the
 * run was started in, so the run must learn its live execution: the continuation's first turn records it with its
 * first commit (shared/core/live-execution.ts), and a cancel stops that execution (StopExecution closes its open
 * task-token wait: https://docs.aws.amazon.com/step-functions/latest/apireference/API_StopExecution.html). Before,
 * the cancel stopped the first execution (long ended) and the continuation kept waiting on its approval until the
 * approval's timeout. The race — a cancel after the continuation started and before its first turn read the run —
 * ends with the continuation finding the run cancelled and calling no model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TurnDeps } from '../../shared/core/engine.ts';
import type { Run } from '../../shared/schemas/run.ts';
import {
  appendTurn,
  applyWorkflowText,
  createOwnTable,
  type E2eStack,
  eventually,
  gatedNotesWorkflow,
  getRun,
  removeDir,
  startE2eStack,
  startRun,
  tempDataDir,
} from '../e2e/support.ts';

/** Turn 0 asks the clock (ungated), so the turn commits and, with one turn per execution, continues as new. */
const clockTurn = {
  response: {
    content: [
      { type: 'text' as const, text: 'Checking the time first.' },
      { type: 'tool_use' as const, name: 'current_time', input: {} },
    ],
  },
};

/** Holds the continuation's first read of the run (turn 1) until released: the race window. */
function holdingFirstContinuationRead() {
  let armed = false;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reached: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const wrap = (deps: TurnDeps): TurnDeps => {
    const store = deps.store;
    const read = store.getRunWithMessages?.bind(store);
    if (!read) throw new Error('the local store reads the run and transcript together');
    const wrapped = new Proxy(store, {
      get(target, prop) {
        if (prop === 'getRunWithMessages')
          return async (runId: string) => {
            const first = await read(runId);
            if (!armed || first.run?.turn !== 1) return first;
            armed = false;
            reached();
            await released;
            return read(runId);
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { ...deps, store: wrapped };
  };
  const arm = () => {
    armed = true;
  };
  return { wrap, arm, held, release };
}

const hold = holdingFirstContinuationRead();
let e2e: E2eStack;
let dataDir: string;
let gated: string;
let raced: string;

beforeAll(async () => {
  dataDir = await tempDataDir();
  e2e = await startE2eStack(await createOwnTable(), {
    dataDir,
    fixtures: [
      { name: 'can-gated', turns: [clockTurn, appendTurn('after the continuation'), { text: 'Done.' }] },
      { name: 'can-race', turns: [clockTurn, { text: 'Done.' }] },
    ],
    // One turn per execution: turn 0's commit continues as new (shared/core/finish.ts).
    wrapTurnDeps: (deps) => hold.wrap({ ...deps, config: { ...deps.config, turnsPerExecution: 1 } }),
  });
  gated = await applyWorkflowText(e2e, 'can-gated', gatedNotesWorkflow('can-gated', ['current_time']));
  raced = await applyWorkflowText(e2e, 'can-race', gatedNotesWorkflow('can-race', ['current_time']));
});

afterAll(async () => {
  hold.release();
  await e2e?.stack.stop();
  await removeDir(dataDir);
});

const executionsOf = async (runId: string) =>
  (await e2e.stack.sfn.listExecutions()).filter(
    (execution) => execution.name === runId || execution.name.startsWith(`${runId}-`),
  );

describe('Cancel of a run that continued as new', () => {
  it('stops the continuation (its approval wait closes), which the run recorded and the API shows', async () => {
    // Prepare: turn 0 continues as new; the continuation's turn 1 parks on an approval.
    const runId = await startRun(e2e, gated);
    const parked = await eventually('the continuation to wait for approval', async () => {
      const run = await getRun(e2e, runId);
      const waits = e2e.stack.sfn.openTaskTokens();
      return run.status === 'awaiting_approval' && waits.some((wait) => wait.executionArn.includes(runId))
        ? run
        : undefined;
    });
    const [continuation, ...others] = (await executionsOf(runId)).filter((e) => e.status === 'RUNNING');
    expect(others).toEqual([]);
    expect(continuation?.name).toMatch(new RegExp(`^${runId}-c1-[0-9a-f]{32}$`));
    const stored = await e2e.stack.store.getRun(runId);

    // Act
    const { body } = await e2e.client.post<{ run: Run }>(`/v1/runs/${runId}/cancel`, {});

    // Assess: the continuation is stopped at once, its wait closed; nothing of the run still runs.
    expect(body.run.status).toBe('cancelled');
    const described = await e2e.stack.sfn.describeExecution(continuation!.executionArn);
    expect(described.status).toBe('ABORTED');
    expect(e2e.stack.sfn.openTaskTokens(continuation!.executionArn)).toEqual([]);
    expect((await executionsOf(runId)).filter((e) => e.status === 'RUNNING')).toEqual([]);
    expect(await getRun(e2e, runId)).toMatchObject({ status: 'cancelled', modelCalls: 2 });
    // The run named it (its first turn's commit), and the API showed it while it ran.
    expect(stored).toMatchObject({ continuedAs: continuation?.name.slice(runId.length + 1) });
    expect(stored?.executionArn).toBeUndefined();
    expect(parked.executionArn).toBe(continuation?.executionArn);
  });

  it('a cancel before the continuation’s first turn read the run: it finds the run cancelled and calls no model', async () => {
    // Prepare: the continuation has started; its first turn is held before it reads the run.
    hold.arm();
    const runId = await startRun(e2e, raced);
    await hold.held;
    const running = (await executionsOf(runId)).filter((e) => e.status === 'RUNNING');
    expect(running.map((e) => e.name)).toEqual([expect.stringMatching(new RegExp(`^${runId}-c1-`))]);
    expect((await e2e.stack.store.getRun(runId))?.continuedAs).toBeUndefined();

    // Act: the cancel stops the execution the run knows (the first, already ended); then the turn goes on.
    const { body } = await e2e.client.post<{ run: Run }>(`/v1/runs/${runId}/cancel`, {});
    hold.release();
    const ended = await e2e.stack.sfn.waitForExecution(running[0]!.executionArn);

    // Assess: the continuation ended through MarkFailed (the run already ended: nothing recorded), no model call.
    expect(body.run.status).toBe('cancelled');
    expect(ended.status).toBe('FAILED');
    const run = await e2e.stack.store.getRun(runId);
    expect(run).toMatchObject({ status: 'cancelled', stopReason: 'cancelled', modelCalls: 1, turn: 1 });
    expect(run?.continuedAs).toBeUndefined();
  });
});
