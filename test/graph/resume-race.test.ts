/**
 * Pause/resume against DynamoDB Local, with the two sides' store calls forced into each order: the execution's
 * AwaitResume (store its token, then read the pause) and the operator's resume (clear the pause, then read the
 * token). Every order answers the wait; a resume whose answer failed can be asked again and gets through.
 */
import { describe, expect, it } from 'vitest';
import {
  type GraphOperationsDeps,
  pauseGraphRun,
  resumeGraphRun,
} from '../../shared/graph-run/operations.ts';
import { awaitResume } from '../../shared/graph-run/wait.ts';
import type { DynamoStore } from '../../shared/store/index.ts';
import { FixedClock, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { refundGraph } from './fixtures.ts';

const ACTOR = 'owner:test';

async function pausedRun(store: DynamoStore) {
  const { version } = await seedWorkflow(store, refundGraph());
  const run = await seedRun(store, version);
  const deps = operations(store, async () => {});
  await pauseGraphRun(deps, { owner: run.owner, runId: run.runId, actor: ACTOR });
  return run;
}

function operations(
  store: DynamoStore,
  sendSuccess: (token: string) => Promise<unknown>,
): GraphOperationsDeps {
  return {
    store,
    clock: new FixedClock(),
    executions: { start: async () => ({ executionArn: 'unused' }), stop: async () => {} },
    taskTokens: { sendSuccess: (token: string) => sendSuccess(token) },
  } as unknown as GraphOperationsDeps;
}

/** Runs the named store calls of both sides in exactly `order`, each after the previous one has finished. */
function inOrder(order: readonly string[]) {
  let at = 0;
  let wake: () => void = () => {};
  let moved = new Promise<void>((resolve) => {
    wake = resolve;
  });
  return async <T>(name: string, call: () => Promise<T>): Promise<T> => {
    while (order[at] !== name) await moved;
    try {
      return await call();
    } finally {
      at++;
      const done = wake;
      moved = new Promise<void>((resolve) => {
        wake = resolve;
      });
      done();
    }
  };
}

/** A store whose `calls` run through `turn` under the given names (once each; later calls pass through). */
function gated(store: DynamoStore, turn: ReturnType<typeof inOrder>, names: Record<string, string>) {
  const used = new Set<string>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      const name = names[String(property)];
      if (typeof value !== 'function' || name === undefined) return value;
      return (...args: unknown[]) => {
        if (used.has(name)) return value.apply(target, args);
        used.add(name);
        return turn(name, () => value.apply(target, args));
      };
    },
  });
}

const ORDERS = [
  ['token stored', 'pause read', 'pause cleared', 'token read'],
  ['token stored', 'pause cleared', 'pause read', 'token read'],
  ['token stored', 'pause cleared', 'token read', 'pause read'],
  ['pause cleared', 'token stored', 'pause read', 'token read'],
  ['pause cleared', 'token stored', 'token read', 'pause read'],
  ['pause cleared', 'token read', 'token stored', 'pause read'],
] as const;

describe('Function: awaitResume with resumeGraphRun', () => {
  it.each(ORDERS)('answers the wait when the calls run in the order %s → %s → %s → %s', async (...order) => {
    // Prepare
    const store = testStore();
    const run = await pausedRun(store);
    const turn = inOrder(order);
    const answered: string[] = [];
    const answer = async (token: string) => {
      answered.push(token);
    };
    // Act
    const [waited] = await Promise.all([
      awaitResume(
        {
          store: gated(store, turn, { putResumeToken: 'token stored', getRun: 'pause read' }),
          answer,
        },
        { runId: run.runId, taskToken: 'token-1' },
      ),
      resumeGraphRun(
        operations(gated(store, turn, { commit: 'pause cleared', getResumeToken: 'token read' }), answer),
        { owner: run.owner, runId: run.runId, actor: ACTOR },
      ),
    ]);
    // Assess: the wait is answered (by either side, maybe both: a closed token answers `already_closed`).
    expect(answered).toContain('token-1');
    const sawResume = order.indexOf('pause read') > order.indexOf('pause cleared');
    expect(waited).toBe(sawResume ? 'resumed' : 'waiting_for_resume');
    expect((await store.getRun(run.runId))?.paused).toBeUndefined();
  });

  it('finishes a resume whose answer failed when the operator resumes again', async () => {
    // Prepare: the execution waits; the first resume clears the pause, then cannot reach Step Functions.
    const store = testStore();
    const run = await pausedRun(store);
    const target = { owner: run.owner, runId: run.runId, actor: ACTOR };
    const waiting = await awaitResume(
      { store, answer: async () => {} },
      { runId: run.runId, taskToken: 'token-2' },
    );
    expect(waiting).toBe('waiting_for_resume');
    const unreachable = operations(store, async () => {
      throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
    });
    await expect(resumeGraphRun(unreachable, target)).rejects.toThrow('throttled');
    expect((await store.getRun(run.runId))?.paused).toBeUndefined();
    // Act: resume again.
    const answered: string[] = [];
    const resumed = await resumeGraphRun(
      operations(store, async (token) => answered.push(token)),
      target,
    );
    // Assess: the waiting execution is answered; once it is, a further resume is refused (not paused).
    expect(resumed?.runId).toBe(run.runId);
    expect(answered).toEqual(['token-2']);
    await expect(
      resumeGraphRun(
        operations(store, async () => {}),
        target,
      ),
    ).rejects.toThrow('the run is not paused');
  });
});
