import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import type { Action, ActionCatalog } from '../../shared/core/actions.ts';
import { newApproval } from '../../shared/core/approval-record.ts';
import { utf8Length } from '../../shared/core/byte-caps.ts';
import { approvalIdFor } from '../../shared/core/identity.ts';
import { DYNAMO_ITEM_LIMIT_BYTES, itemBytes, valueBytes } from '../../shared/core/item-size.ts';
import type { ContentBlock } from '../../shared/core/ports.ts';
import { transcriptProblems } from '../../shared/core/transcript.ts';
import { verifyTranscriptBinding } from '../../shared/core/transcript-binding.ts';
import {
  MAX_APPROVAL_ARGS_BYTES,
  MAX_ASSISTANT_CONTENT_BYTES,
  MAX_RESULT_TEXT_BYTES,
  MAX_TOOL_RESULT_BYTES,
  MAX_TOOL_USE_ID_BYTES,
} from '../../shared/core/transcript-limits.ts';
import { BudgetSchema } from '../../shared/schemas/budget.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { indexKeys, keys } from '../../shared/store/keys.ts';
import * as z from '../../shared/zod.ts';
import { driveRun, engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
const EURO = '€'; // 3 UTF-8 bytes
// The schema's own limit, as its JSON Schema states it.
const MAX_CALLS =
  (z.toJSONSchema(BudgetSchema.shape.maxToolCallsPerTurn) as { maximum?: number }).maximum ?? 0;

/** An action whose result is far over the cap, in 3-byte characters, distinct per call. */
const hugeResult: Action = {
  name: 'current_time',
  description: 'returns a huge result',
  input: z.strictObject({ n: z.number() }),
  idempotent: false,
  irreversible: false,
  run: async (input) => ({
    content: `${(input as { n: number }).n}:${EURO.repeat(MAX_TOOL_RESULT_BYTES)}`,
    isError: false,
  }),
};

/** An action that takes any amount of text (the built-in notes cap theirs). */
const bigInput: Action = {
  name: 'notes_put',
  description: 'takes a huge input',
  input: z.strictObject({ value: z.string() }),
  idempotent: false,
  irreversible: false,
  run: async () => ({ content: 'stored', isError: false }),
};

function depsWith(model: ScriptedModel) {
  const deps = engineDeps(store, model);
  const fakes: Record<string, Action> = { current_time: hugeResult, notes_put: bigInput };
  const actions: ActionCatalog = {
    resolve: (name, definition) => fakes[name] ?? deps.actions.resolve(name, definition),
  };
  return { ...deps, actions };
}

async function messageItemsOf(runId: string) {
  const response = await store.ctx.doc.send(
    new QueryCommand({
      TableName: store.ctx.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :msg)',
      ExpressionAttributeValues: { ':pk': `RUN#${runId}`, ':msg': 'MSG#' },
    }),
  );
  return response.Items ?? [];
}

async function expectVerifiable(runId: string, owner: string) {
  const messages = await store.listMessages(runId);
  expect(
    transcriptProblems(messages.map((m) => ({ role: m.role, content: m.content as ContentBlock[] }))),
  ).toEqual([]);
  const audit = await store.listAudit(runId);
  expect(verifyAuditChain(audit, { owner, runId })).toMatchObject({ ok: true });
  expect(verifyTranscriptBinding(audit, messages)).toEqual({ ok: true });
}

describe('large transcripts on DynamoDB Local', () => {
  it('continues a run whose turn answers the maximum calls with maximum results in 3-byte characters', async () => {
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({ budget: { maxUsdPerRun: 1000, maxTurns: 5, maxToolCallsPerTurn: MAX_CALLS } }),
    );
    const run = await seedRun(store, version);
    const calls = Array.from({ length: MAX_CALLS }, (_, n) => toolUse(`toolu_${n}`, 'current_time', { n }));
    const model = new ScriptedModel([
      { content: [text('Fetching everything.'), ...calls], stopReason: 'tool_use' },
      { content: [text('Done.')], stopReason: 'end_turn' },
    ]);

    const outcomes = await driveRun(depsWith(model), run.runId);

    expect(outcomes.map((outcome) => outcome.next)).toEqual(['continue', 'done']);
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'done', result: { text: 'Done.' } });
    const messages = await store.listMessages(run.runId);
    expect(messages.map((message) => message.seq)).toEqual([0, 1, 2, 3]);
    const results = messages[2]!.content;
    expect(results).toHaveLength(MAX_CALLS);
    results.forEach((block, n) => {
      expect(block).toMatchObject({ type: 'tool_result', tool_use_id: `toolu_${n}` });
      const content = block.type === 'tool_result' ? block.content : '';
      expect(content.startsWith(`${n}:${EURO}`)).toBe(true);
      expect(utf8Length(content)).toBeLessThanOrEqual(MAX_TOOL_RESULT_BYTES);
    });
    // What the model was sent next is exactly what was stored, in order.
    expect(model.requests[1]?.messages[2]?.content).toEqual(results);
    const items = await messageItemsOf(run.runId);
    expect(items.filter((item) => String(item.sk).startsWith('MSG#000002')).length).toBeGreaterThan(1);
    for (const item of items) expect(itemBytes(item)).toBeLessThan(DYNAMO_ITEM_LIMIT_BYTES);
    await expectVerifiable(run.runId, run.owner);
  }, 120_000); // 100 commits of 50 KB rows on a shared DynamoDB Local: slow, not timed

  it('stores a long model answer across items and reads it back exactly', async () => {
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const answer = `${EURO.repeat(400_000)}😀`; // 1.2 MB
    const model = new ScriptedModel([{ content: [text(answer)], stopReason: 'end_turn' }]);

    await driveRun(depsWith(model), run.runId);

    const messages = await store.listMessages(run.runId);
    expect(messages[1]?.content).toEqual([{ type: 'text', text: answer }]);
    const final = await store.getRun(run.runId);
    expect(final?.status).toBe('done');
    expect(utf8Length(final?.result?.text ?? '')).toBeLessThanOrEqual(MAX_RESULT_TEXT_BYTES);
    expect(final?.result?.text).toContain('[truncated: the full answer is in the transcript]');
    await expectVerifiable(run.runId, run.owner);
  });

  it('ends the run with a named error when the answer is over the cap, instead of retrying a doomed write', async () => {
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const model = new ScriptedModel([
      { content: [text(EURO.repeat(MAX_ASSISTANT_CONTENT_BYTES / 3 + 1))], stopReason: 'end_turn' },
    ]);

    const outcomes = await driveRun(depsWith(model), run.runId);

    expect(outcomes.map((outcome) => outcome.next)).toEqual(['failed']);
    expect(await store.getRun(run.runId)).toMatchObject({
      status: 'failed',
      stopReason: 'error',
      modelCalls: 1,
      error: { name: 'ModelOutputTooLargeError' },
    });
    const messages = await store.listMessages(run.runId);
    expect(messages[1]).toMatchObject({ role: 'assistant', stopReason: 'output_too_large' });
    await expectVerifiable(run.runId, run.owner);
  });
});

describe('approvals of large calls', () => {
  it('refuses a gated call whose arguments are too large to hold for approval, and the run goes on', async () => {
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({
        gates: { notes_put: 'needs_approval' },
        approvals: { approvers: ['boss@example.com'], timeoutSeconds: 600 },
      }),
    );
    const run = await seedRun(store, version);
    const value = EURO.repeat(MAX_APPROVAL_ARGS_BYTES / 3 + 1);
    const model = new ScriptedModel([
      { content: [toolUse('g1', 'notes_put', { value })], stopReason: 'tool_use' },
      { content: [text('Could not store it.')], stopReason: 'end_turn' },
    ]);

    const outcomes = await driveRun(depsWith(model), run.runId);

    expect(outcomes.map((outcome) => outcome.next)).toEqual(['continue', 'done']);
    expect(await store.getApproval(approvalIdFor(run.runId, 'g1'))).toBeUndefined();
    const results = (await store.listMessages(run.runId))[2]?.content;
    expect(results).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'g1',
        content: expect.stringContaining(
          `the input cannot be stored for its approval (input.value is too large to store: ${utf8Length(value) + 9} bytes as DynamoDB counts them`,
        ),
        is_error: true,
      },
    ]);
    await expectVerifiable(run.runId, run.owner);
  });

  it('denies a gated call of near 400 KB before any approval write, naming the field', async () => {
    // Prepare: a gated call whose one field is just under DynamoDB's item limit, beside a small one.
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({
        gates: { notes_put: 'needs_approval' },
        approvals: { approvers: ['boss@example.com'], timeoutSeconds: 600 },
        // The next turn sends the call back to the model: ~100k tokens, priced within this budget.
        budget: { maxUsdPerRun: 50, maxTurns: 10 },
      }),
    );
    const run = await seedRun(store, version);
    const value = 'v'.repeat(DYNAMO_ITEM_LIMIT_BYTES - 2_000);
    const model = new ScriptedModel([
      { content: [toolUse('g2', 'notes_put', { value })], stopReason: 'tool_use' },
      { content: [text('Could not store it.')], stopReason: 'end_turn' },
    ]);

    // Act
    const outcomes = await driveRun(depsWith(model), run.runId);

    // Assert: no approval, the call denied naming input.value, the run finished, its records verifiable.
    expect(outcomes.map((outcome) => outcome.next)).toEqual(['continue', 'done']);
    expect(await store.getApproval(approvalIdFor(run.runId, 'g2'))).toBeUndefined();
    const [result] = ((await store.listMessages(run.runId))[2]?.content ?? []) as { content?: string }[];
    expect(result?.content).toContain(
      `Denied: the input cannot be stored for its approval (input.value is too large to store: ${value.length + 9} bytes as DynamoDB counts them`,
    );
    expect(result?.content).toContain(`the limit is ${MAX_APPROVAL_ARGS_BYTES}`);
    expect((await store.getRun(run.runId))?.status).not.toBe('failed');
    await expectVerifiable(run.runId, run.owner);
  });

  it('an approval item holding the largest arguments the gate lets through fits in one DynamoDB item', () => {
    // The approval item: its keys and index keys, the arguments at the cap, the longest reason (4,000 characters
    // of 3 bytes), a tool name and id at their cap (MAX_TOOL_USE_ID_BYTES), twenty long approvers.
    const run = { runId: 'r'.repeat(26), owner: 'o'.repeat(128), workflowId: 'w'.repeat(26) };
    const approval = newApproval(
      { ...run, workflowName: 'n'.repeat(100), workflowVersion: 9999 } as Run,
      {
        toolUseId: 't'.repeat(MAX_TOOL_USE_ID_BYTES),
        turn: 200,
        tool: 'a'.repeat(MAX_TOOL_USE_ID_BYTES),
        input: { value: 'v'.repeat(MAX_APPROVAL_ARGS_BYTES - 9) },
        approvers: Array.from({ length: 20 }, () => `${'x'.repeat(240)}@example.com`),
        timeoutSeconds: 86_400,
        reason: EURO.repeat(10_000),
      },
      0,
    );
    const item = {
      ...keys.approval(approval.approvalId),
      ...indexKeys.approvalByOwner(approval.owner, approval.createdAt, approval.approvalId),
      ...approval,
    };
    expect(valueBytes(approval.args)).toBe(MAX_APPROVAL_ARGS_BYTES);
    expect(itemBytes(item)).toBeLessThan(DYNAMO_ITEM_LIMIT_BYTES);
  });
});
