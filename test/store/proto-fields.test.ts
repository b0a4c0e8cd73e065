/**
 * A field named `__proto__` in a stored value. JSON.parse makes it an own field like any other, so it comes
 * from a model's tool call, an engine's answer, a job's input or a fetched JSON; the document client's
 * marshaller and unmarshaller both dropped it, silently, so the stored tool call was not the one its audit entry
 * hashed. The store keeps it under an escaped name (shared/store/own-constructor-keys.ts), on DynamoDB Local.
 */
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../shared/audit/verify.ts';
import { verifyTranscriptBinding } from '../../shared/core/transcript-binding.ts';
import { driveRun, engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

/** JSON with every object's own fields sorted (DynamoDB keeps no order of a map's fields). */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, child: unknown) =>
    child !== null && typeof child === 'object' && !Array.isArray(child)
      ? Object.fromEntries(Object.entries(child).sort(([a], [b]) => (a < b ? -1 : 1)))
      : child,
  );

/** Own `__proto__` fields (as JSON.parse makes them), next to names that look like their escaped form. */
const awkward = JSON.parse(
  JSON.stringify({
    top: { PROTO: { polluted: true }, b: 1 },
    list: [{ PROTO: 'x' }, 'plain', { 'PROTO~': 'looks escaped', 'PROTO~~': 2 }],
    both: { PROTO: 1, constructor: { name: 'String' } },
  }).replaceAll('PROTO', '__proto__'),
);

describe('a stored value with a `__proto__` field', () => {
  it('is written and read back unchanged, as own fields, and pollutes nothing', async () => {
    const pk = `TEST#proto#${Date.now()}`;
    const key = { pk, sk: 'ITEM#1' };
    await store.ctx.doc.send(
      new PutCommand({ TableName: store.ctx.table, Item: { ...key, value: awkward } }),
    );
    const read = await store.ctx.doc.send(new GetCommand({ TableName: store.ctx.table, Key: key }));
    const value = read.Item?.value as Record<string, Record<string, unknown>>;
    expect(canonical(value)).toBe(canonical(awkward));
    expect(Object.hasOwn(value.top!, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value.top)).toBe(Object.prototype);
    expect(Object.keys(value.list![2] as object).sort()).toEqual(['__proto__~', '__proto__~~']);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    const queried = await store.ctx.doc.send(
      new QueryCommand({
        TableName: store.ctx.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
      }),
    );
    expect(canonical(queried.Items?.[0]?.value)).toBe(canonical(awkward));
  });

  it("in a model's tool call: the transcript keeps it and still matches the audit chain's hashes", async () => {
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const input = JSON.parse('{"name":"log","line":"one","__proto__":{"admin":true}}');
    const model = new ScriptedModel([
      { content: [toolUse('n1', 'notes_append', input)], stopReason: 'tool_use' },
      { content: [text('done')], stopReason: 'end_turn' },
    ]);
    await driveRun(engineDeps(store, model), run.runId);
    const messages = await store.listMessages(run.runId);
    const call = messages.flatMap((message) => message.content).find((block) => block.type === 'tool_use');
    expect(canonical(call && 'input' in call ? call.input : undefined)).toBe(canonical(input));
    const audit = await store.listAudit(run.runId);
    expect(verifyAuditChain(audit, { owner: run.owner, runId: run.runId })).toMatchObject({ ok: true });
    expect(verifyTranscriptBinding(audit, messages)).toEqual({ ok: true });
  });
});
