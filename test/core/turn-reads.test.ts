/**
 * The turn's first reads (shared/core/turn-context.ts, readTurnStart): the run and its transcript in one Query
 * (getRunWithMessages) where the store has it, else two parallel reads; in a container that has read the run
 * before, the workflow head goes out alongside them (one round trip, not two: handed to getRunWithMessages as
 * a hint, which reads it in the same request or in parallel), and is still read on every turn, so a workflow
 * disabled between turns is refused on the very next one.
 */
import { describe, expect, it } from 'vitest';
import type { RunStore } from '../../shared/core/store-port.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { runExecutionInput } from '../../shared/runs/start-run.ts';
import type { DynamoStore } from '../../shared/store/index.ts';
import { engineDeps, firstAttempt, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

/** The store with its reads logged as `start <method>` / `end <method>`, in the order they happened. */
function logged(store: DynamoStore): { store: DynamoStore; log: string[] } {
  const log: string[] = [];
  const watched = new Set(['getRun', 'listMessages', 'getRunWithMessages', 'getWorkflowHead']);
  const proxy = new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (!watched.has(String(property))) return value.bind(target);
      return async (...args: unknown[]) => {
        // The head handed to the store as a hint is read by it, alongside the run: logged as a head read.
        if (property === 'getRunWithMessages' && args[1] !== undefined) log.push('start getWorkflowHead');
        log.push(`start ${String(property)}`);
        try {
          return await value.apply(target, args);
        } finally {
          log.push(`end ${String(property)}`);
        }
      };
    },
  });
  return { store: proxy, log };
}

const twoTurns = () =>
  new ScriptedModel([
    { content: [toolUse('a1', 'current_time', {})], stopReason: 'tool_use' },
    { content: [text('ok')], stopReason: 'end_turn' },
  ]);

/** Whether the head read started while the run read (alone or with the transcript) was still in flight. */
function headAlongsideRun(log: string[]): boolean {
  const runEnd = log.findIndex((entry) => entry === 'end getRun' || entry === 'end getRunWithMessages');
  return log.indexOf('start getWorkflowHead') >= 0 && log.indexOf('start getWorkflowHead') < runEnd;
}

/** The store without its optional one-request read, as a store of another kind would be. */
const withoutRunWithMessages = <S extends object>(store: S): S =>
  new Proxy(store, {
    get: (target, property) =>
      property === 'getRunWithMessages' ? undefined : Reflect.get(target, property, target),
  });

describe('the turn reads the workflow head alongside the run', () => {
  it('on a later turn in the same container: one round trip for run, transcript and head', async () => {
    const { store, log } = logged(testStore());
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const deps = engineDeps(store, twoTurns());

    // A container that has not read the run yet: the run and transcript in one read, the head after it.
    const first = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    expect(headAlongsideRun(log)).toBe(false);
    expect(log.slice(0, 2)).toEqual(['start getRunWithMessages', 'end getRunWithMessages']);

    log.length = 0;
    const second = await runTurn(deps, { runId: run.runId, turn: first.turn, segmentStartTurn: 0 });

    expect(second).toMatchObject({ next: 'done' });
    expect(headAlongsideRun(log)).toBe(true);
    expect(log.filter((entry) => entry === 'start getWorkflowHead')).toHaveLength(1);
  });

  it("on a run's first turn, from its execution's head hint: one round trip for run, first message and head", async () => {
    // Prepare: a container that has not read the run, given the hint its first execution carries.
    const seeding = testStore();
    const { version } = await seedWorkflow(seeding, minimalWorkflow());
    const run = await seedRun(seeding, version);
    const { store, log } = logged(testStore());
    const deps = engineDeps(store, twoTurns());

    // Act
    const first = await runTurn(deps, { ...runExecutionInput(run), attempt: firstAttempt('hint') });

    // Assess: the head went out with the run, and was not read again.
    expect(first).toMatchObject({ next: 'continue' });
    expect(headAlongsideRun(log)).toBe(true);
    expect(log.filter((entry) => entry === 'start getWorkflowHead')).toHaveLength(1);
  });

  it("a head hint naming another workflow decides nothing: the run's own head is read, and a disabled one refuses", async () => {
    // Prepare: the run's workflow disabled; the hint names another of the owner's workflows, enabled.
    const seeding = testStore();
    const { head, version } = await seedWorkflow(seeding, minimalWorkflow());
    const other = await seedWorkflow(seeding, minimalWorkflow({ name: 'other-flow' }));
    const run = await seedRun(seeding, version);
    await seeding.updateWorkflowHead(head, { ...head, enabled: false, updatedAt: new Date().toISOString() });
    const { store, log } = logged(testStore());
    const model = twoTurns();
    const deps = engineDeps(store, model);

    // Act
    const first = await runTurn(deps, {
      ...runExecutionInput(run),
      headHint: { owner: other.head.owner, workflowId: other.head.workflowId },
      attempt: firstAttempt('wrong-hint'),
    });

    // Assess: the hinted head read with the run, then the run's own after it; the model never called.
    expect(first).toMatchObject({ next: 'failed', stopReason: 'policy_denied' });
    expect(log.filter((entry) => entry === 'start getWorkflowHead')).toHaveLength(2);
    expect(model.requests).toHaveLength(0);
  });

  it("a previous turn's read hint naming another workflow decides nothing either: the run's own head refuses", async () => {
    // Prepare: a run past its first turn, its workflow then disabled; the state names another workflow's head.
    const seeding = testStore();
    const { head, version } = await seedWorkflow(seeding, minimalWorkflow());
    const other = await seedWorkflow(seeding, minimalWorkflow({ name: 'other-flow' }));
    const run = await seedRun(seeding, version);
    const model = twoTurns();
    const first = await runTurn(engineDeps(seeding, model), {
      ...runExecutionInput(run),
      attempt: firstAttempt('wrong-read-hint'),
    });
    const current = (await seeding.getWorkflowHead(head.owner, head.workflowId))!;
    await seeding.updateWorkflowHead(current, {
      ...current,
      enabled: false,
      updatedAt: new Date().toISOString(),
    });
    const { store, log } = logged(testStore());

    // Act: on another container, the hint's count right but its head another workflow's.
    const second = await runTurn(engineDeps(store, model), {
      runId: run.runId,
      turn: first.turn,
      segmentStartTurn: 0,
      readHint: { owner: other.head.owner, workflowId: other.head.workflowId, messageCount: 3 },
      attempt: firstAttempt('wrong-read-hint'),
    });

    // Assess: the hinted head read with the run, then the run's own; the model not called again.
    expect(second).toMatchObject({ next: 'failed', stopReason: 'policy_denied' });
    expect(log.filter((entry) => entry === 'start getWorkflowHead')).toHaveLength(2);
    expect(model.requests).toHaveLength(1);
  });

  it('still refuses a workflow disabled between two turns, on the very next turn', async () => {
    const { store, log } = logged(testStore());
    const { head, version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const model = twoTurns();
    const deps = engineDeps(store, model);
    const first = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    await store.updateWorkflowHead(head, { ...head, enabled: false, updatedAt: new Date().toISOString() });

    log.length = 0;
    const second = await runTurn(deps, { runId: run.runId, turn: first.turn, segmentStartTurn: 0 });

    expect(headAlongsideRun(log)).toBe(true);
    expect(second).toMatchObject({ next: 'failed', stopReason: 'policy_denied' });
    expect(model.requests).toHaveLength(1);
  });

  it('reads the head after the run when the store cannot tell a run’s scope (no knownRunScope)', async () => {
    const real = testStore();
    const { version } = await seedWorkflow(real, minimalWorkflow());
    const run = await seedRun(real, version);
    const { store: watched, log } = logged(real);
    // A RunStore without the optional method, as a store of another kind would be.
    const bare: RunStore = new Proxy(watched, {
      get: (target, property) =>
        property === 'knownRunScope' ? undefined : Reflect.get(target, property, target),
    });
    const deps = engineDeps(bare as DynamoStore, twoTurns());
    const first = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    log.length = 0;

    const second = await runTurn(deps, { runId: run.runId, turn: first.turn, segmentStartTurn: 0 });

    expect(second).toMatchObject({ next: 'done' });
    expect(headAlongsideRun(log)).toBe(false);
    expect(log).toContain('start getWorkflowHead');
  });

  it('a store without getRunWithMessages: the run and transcript in parallel, the head alongside later', async () => {
    const real = testStore();
    const { version } = await seedWorkflow(real, minimalWorkflow());
    const run = await seedRun(real, version);
    const { store: watched, log } = logged(real);
    const deps = engineDeps(withoutRunWithMessages(watched), twoTurns());

    const first = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    const firstReads = log.slice(0, 4);
    log.length = 0;
    const second = await runTurn(deps, { runId: run.runId, turn: first.turn, segmentStartTurn: 0 });

    expect(firstReads.slice(0, 2).sort()).toEqual(['start getRun', 'start listMessages']);
    expect(second).toMatchObject({ next: 'done' });
    expect(headAlongsideRun(log)).toBe(true);
    expect(log).not.toContain('start getRunWithMessages');
  });
});
