import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import { decideApproval, expireApprovals } from '../../shared/core/approval-ops.ts';
import type { ContentBlock } from '../../shared/core/ports.ts';
import { transcriptProblems } from '../../shared/core/transcript.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { driveRun, engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

async function transcriptOf(runId: string) {
  return (await store.listMessages(runId)).map((message) => ({
    role: message.role,
    content: message.content as ContentBlock[],
  }));
}

async function expectHealthy(runId: string, owner: string) {
  expect(transcriptProblems(await transcriptOf(runId))).toEqual([]);
  const audit = await store.listAudit(runId);
  expect(verifyAuditChain(audit, { owner, runId })).toMatchObject({ ok: true });
}

const resultsOf = (content: ContentBlock[]) =>
  content.flatMap((block) =>
    block.type === 'tool_result'
      ? [{ id: block.tool_use_id, error: block.is_error === true, text: block.content }]
      : [],
  );

describe('runTurn', () => {
  it('runs a tool loop to end_turn: dispatches, feeds results back, records usage, cost and a valid audit chain', async () => {
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version, { input: { task: 'log it' } });
    const model = new ScriptedModel([
      {
        content: [text('I will log it.'), toolUse('t1', 'notes_append', { name: 'log', line: 'hello' })],
        stopReason: 'tool_use',
      },
      { content: [text('Logged.')], stopReason: 'end_turn' },
    ]);
    const outcomes = await driveRun(engineDeps(store, model), run.runId);
    expect(outcomes.map((o) => o.next)).toEqual(['continue', 'done']);
    const final = await store.getRun(run.runId);
    expect(final).toMatchObject({
      status: 'done',
      stopReason: 'end_turn',
      modelCalls: 2,
      result: { text: 'Logged.' },
    });
    expect(final?.usage).toEqual({
      inputTokens: 200,
      outputTokens: 100,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
    });
    // claude-sonnet-5-5 at $2 / $10 per MTok: 2 × (100 × 2 + 50 × 10) / 1e6
    expect(final?.costUsd).toBeCloseTo(0.0014, 9);
    expect(await store.getNoteLines(run.runId, 'log')).toEqual(['hello']);
    expect(model.requests[0]?.tools.map((tool) => tool.name).sort()).toEqual([
      'current_time',
      'notes_append',
      'notes_put',
    ]);
    expect(resultsOf(model.requests[1]!.messages.at(-1)!.content)).toEqual([
      { id: 't1', error: false, text: expect.stringContaining('1 line') },
    ]);
    await expectHealthy(run.runId, run.owner);
  });

  it.each([
    ['max_tokens', [{ content: [text('cut')], stopReason: 'max_tokens' as const }], 'failed', 'max_tokens'],
    [
      'refusal',
      [{ content: [text('I cannot help with that.')], stopReason: 'refusal' as const }],
      'failed',
      'refusal',
    ],
  ])('records the %s stop reason with the run status', async (_name, steps, status, stopReason) => {
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const outcomes = await driveRun(engineDeps(store, new ScriptedModel(steps)), run.runId);
    expect(outcomes.at(-1)).toMatchObject({ next: 'failed', stopReason });
    expect(await store.getRun(run.runId)).toMatchObject({ status, stopReason });
    await expectHealthy(run.runId, run.owner);
  });

  it('stops at max_turns with the transcript still valid', async () => {
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({ budget: { maxUsdPerRun: 1, maxTurns: 3 } }),
    );
    const run = await seedRun(store, version);
    const loop = (i: number) => ({
      content: [toolUse(`t${i}`, 'current_time', {})],
      stopReason: 'tool_use' as const,
    });
    const model = new ScriptedModel([loop(0), loop(1), loop(2), loop(3), loop(4)]);
    const outcomes = await driveRun(engineDeps(store, model), run.runId);
    expect(outcomes.at(-1)).toMatchObject({ next: 'failed', stopReason: 'max_turns' });
    expect(model.requests).toHaveLength(3);
    await expectHealthy(run.runId, run.owner);
  });

  it('stops with budget_exceeded before the call that would overshoot the per-run ceiling', async () => {
    // Each call reserves ~ (request bytes × $2 + 1024 × $10) / 1e6 ≈ $0.0115 and actually costs $0.0032.
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({ budget: { maxUsdPerRun: 0.02, maxTurns: 10 } }),
    );
    const run = await seedRun(store, version);
    const expensive = (i: number) => ({
      content: [toolUse(`t${i}`, 'current_time', {})],
      stopReason: 'tool_use' as const,
      usage: { inputTokens: 1000, outputTokens: 120 },
    });
    const model = new ScriptedModel([expensive(0), expensive(1), expensive(2), expensive(3)]);
    const outcomes = await driveRun(engineDeps(store, model), run.runId);
    const final = await store.getRun(run.runId);
    expect(outcomes.at(-1)).toMatchObject({ next: 'failed', stopReason: 'budget_exceeded' });
    expect(final?.costUsd).toBeLessThanOrEqual(0.02);
    expect(model.requests.length).toBeGreaterThanOrEqual(1);
    expect((await store.listAudit(run.runId)).filter((e) => e.type === 'budget_exceeded')).toHaveLength(1);
    await expectHealthy(run.runId, run.owner);
  });

  it('denies with a model-readable reason: an unknown tool, an action outside the allow-set, and schema-invalid input', async () => {
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({ allowedActions: ['notes_put', 'current_time'] }),
    );
    const run = await seedRun(store, version);
    const model = new ScriptedModel([
      {
        content: [
          toolUse('u1', 'launch_rocket', {}),
          toolUse('u2', 'notes_append', { name: 'x', line: 'y' }),
          toolUse('u3', 'notes_put', { name: 'BAD NAME', value: 1 }),
          toolUse('u4', 'current_time', {}),
        ],
        stopReason: 'tool_use',
      },
      { content: [text('Done, degraded.')], stopReason: 'end_turn' },
    ]);
    await driveRun(engineDeps(store, model), run.runId);
    const results = resultsOf(model.requests[1]!.messages.at(-1)!.content);
    expect(results.map((r) => [r.id, r.error])).toEqual([
      ['u1', true],
      ['u2', true],
      ['u3', true],
      ['u4', false],
    ]);
    expect(results[0]?.text).toMatch(/Denied: 'launch_rocket' is not an action this workflow may use/);
    expect(results[1]?.text).toMatch(/Denied: 'notes_append' is not an action/);
    expect(results[2]?.text).toMatch(/does not match the action's schema/);
    expect(await store.getNoteLines(run.runId, 'x')).toBeUndefined();
    await expectHealthy(run.runId, run.owner);
  });

  it('refuses calls past the per-turn tool-call budget with a readable refusal', async () => {
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({ budget: { maxUsdPerRun: 1, maxToolCallsPerTurn: 2 } }),
    );
    const run = await seedRun(store, version);
    const model = new ScriptedModel([
      {
        content: [0, 1, 2].map((i) => toolUse(`c${i}`, 'notes_append', { name: 'n', line: `l${i}` })),
        stopReason: 'tool_use',
      },
      { content: [text('ok')], stopReason: 'end_turn' },
    ]);
    await driveRun(engineDeps(store, model), run.runId);
    const results = resultsOf(model.requests[1]!.messages.at(-1)!.content);
    expect(results.map((r) => r.error)).toEqual([false, false, true]);
    expect(results[2]?.text).toMatch(/per-turn limit of 2 tool calls/);
    expect(await store.getNoteLines(run.runId, 'n')).toEqual(['l0', 'l1']);
  });

  it('refuses an action withdrawn mid-run by a new workflow version (live policy)', async () => {
    const { head, version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const model = new ScriptedModel([
      { content: [toolUse('a1', 'notes_append', { name: 'n', line: 'first' })], stopReason: 'tool_use' },
      { content: [toolUse('a2', 'notes_append', { name: 'n', line: 'second' })], stopReason: 'tool_use' },
      { content: [text('ok')], stopReason: 'end_turn' },
    ]);
    const deps = engineDeps(store, model);
    const first = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    const withdrawn = { ...version.definition, allowedActions: ['notes_put', 'current_time'] };
    await store.addWorkflowVersion(
      head,
      { ...head, latestVersion: 2 },
      { ...version, version: 2, definition: withdrawn },
    );
    await driveRun(deps, run.runId, { turn: first.turn, segmentStartTurn: 0 });
    expect(await store.getNoteLines(run.runId, 'n')).toEqual(['first']);
    expect(resultsOf(model.requests[2]!.messages.at(-1)!.content)[0]?.text).toMatch(/withdrawn or disabled/);
    // The withdrawn action is no longer offered either.
    expect(model.requests[2]?.tools.map((t) => t.name)).not.toContain('notes_append');
  });

  it('ends the run denied (policy_denied) when the workflow is disabled mid-run', async () => {
    const { head, version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const model = new ScriptedModel([
      { content: [toolUse('a1', 'current_time', {})], stopReason: 'tool_use' },
    ]);
    const deps = engineDeps(store, model);
    const first = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    await store.updateWorkflowHead(head, {
      ...head,
      enabled: false,
      updatedAt: new Date(Date.now()).toISOString(),
    });
    const second = await runTurn(deps, { runId: run.runId, turn: first.turn, segmentStartTurn: 0 });
    expect(second).toMatchObject({ next: 'failed', stopReason: 'policy_denied' });
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'denied', stopReason: 'policy_denied' });
    await expectHealthy(run.runId, run.owner);
  });

  it('answers a retried invocation of a committed turn with the committed outcome and changes nothing', async () => {
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const model = new ScriptedModel([
      { content: [toolUse('a1', 'notes_append', { name: 'n', line: 'x' })], stopReason: 'tool_use' },
      { content: [text('ok')], stopReason: 'end_turn' },
    ]);
    const deps = engineDeps(store, model);
    const first = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    const committed = await store.getRun(run.runId);
    const retried = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    expect(retried).toEqual(first);
    expect(await store.getRun(run.runId)).toEqual(committed);
    expect(model.requests).toHaveLength(1);
    expect(await store.getNoteLines(run.runId, 'n')).toEqual(['x']);
  });

  describe('approvals', () => {
    const gated = () =>
      minimalWorkflow({
        gates: { notes_append: 'needs_approval' },
        approvals: { approvers: ['boss@example.com'], timeoutSeconds: 600 },
      });
    const script = () =>
      new ScriptedModel([
        {
          content: [
            text('I want to record this.'),
            toolUse('g1', 'notes_append', { name: 'n', line: 'approved line' }),
          ],
          stopReason: 'tool_use',
        },
        { content: [text('finished')], stopReason: 'end_turn' },
      ]);

    it('waits for approval, then dispatches exactly the approved arguments once', async () => {
      const { version } = await seedWorkflow(store, gated());
      const run = await seedRun(store, version);
      const clock = new FixedClock();
      const model = script();
      const deps = engineDeps(store, model, { clock });
      const waiting = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
      expect(waiting).toMatchObject({ next: 'await_approval', approvalTimeoutSeconds: 600 });
      const parked = await store.getRun(run.runId);
      expect(parked?.status).toBe('awaiting_approval');
      const approval = await store.getApproval(parked!.pendingApprovalIds[0]!);
      expect(approval).toMatchObject({
        status: 'pending',
        tool: 'notes_append',
        args: { name: 'n', line: 'approved line' },
        reason: 'I want to record this.',
      });
      expect(await store.getNoteLines(run.runId, 'n')).toBeUndefined();
      clock.advance(10_000);
      await decideApproval(
        { store, clock },
        { approvalId: approval!.approvalId, approver: 'boss@example.com', decision: 'approved' },
      );
      await expect(
        decideApproval(
          { store, clock },
          { approvalId: approval!.approvalId, approver: 'boss@example.com', decision: 'denied' },
        ),
      ).rejects.toThrow(/already decided \(approved\)/);
      const rest = await driveRun(deps, run.runId, { turn: waiting.turn, segmentStartTurn: 0 });
      expect(rest.at(-1)?.next).toBe('done');
      expect(await store.getNoteLines(run.runId, 'n')).toEqual(['approved line']);
      const audit = await store.listAudit(run.runId);
      expect(audit.find((e) => e.type === 'approval_decided')).toMatchObject({
        actor: 'approver:boss@example.com',
        data: { decision: 'approved' },
      });
      await expectHealthy(run.runId, run.owner);
    });

    it.each([
      ['denied', /an approver \(boss@example.com\) denied this call/],
      ['expired', /no human decided before the approval timed out/],
    ])('tells the model when the approval is %s and never runs the call', async (how, message) => {
      const { version } = await seedWorkflow(store, gated());
      const run = await seedRun(store, version);
      const clock = new FixedClock();
      const model = script();
      const deps = engineDeps(store, model, { clock });
      const waiting = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
      const [approvalId] = (await store.getRun(run.runId))!.pendingApprovalIds;
      if (how === 'denied') {
        await decideApproval(
          { store, clock },
          { approvalId: approvalId!, approver: 'boss@example.com', decision: 'denied' },
        );
      } else {
        clock.advance(601_000);
        expect(await expireApprovals({ store, clock }, run.runId)).toBe(1);
        await expect(
          decideApproval(
            { store, clock },
            { approvalId: approvalId!, approver: 'boss@example.com', decision: 'approved' },
          ),
        ).rejects.toThrow(/already decided/);
      }
      const rest = await driveRun(deps, run.runId, { turn: waiting.turn, segmentStartTurn: 0 });
      expect(rest.at(-1)?.next).toBe('done');
      expect(resultsOf(model.requests[1]!.messages.at(-1)!.content)[0]?.text).toMatch(message);
      expect(await store.getNoteLines(run.runId, 'n')).toBeUndefined();
      await expectHealthy(run.runId, run.owner);
    });

    it('refuses a decision from someone who is not an approver', async () => {
      const { version } = await seedWorkflow(store, gated());
      const run = await seedRun(store, version);
      const clock = new FixedClock();
      await runTurn(engineDeps(store, script(), { clock }), {
        runId: run.runId,
        turn: 0,
        segmentStartTurn: 0,
      });
      const [approvalId] = (await store.getRun(run.runId))!.pendingApprovalIds;
      await expect(
        decideApproval(
          { store, clock },
          { approvalId: approvalId!, approver: 'mallory@example.com', decision: 'approved' },
        ),
      ).rejects.toThrow(/not an approver/);
      expect((await store.getApproval(approvalId!))?.status).toBe('pending');
    });
  });
});
