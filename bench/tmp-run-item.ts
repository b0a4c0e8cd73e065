import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ApiClient } from '../shared/cli/client.ts';
import { billedItemBytes, billedValueBytes } from '../shared/cost/item-bytes.ts';
import { startLocalStack } from '../shared/local/stack.ts';

const dataDir = await mkdtemp(join(tmpdir(), 'wf-tmp-'));
const stack = await startLocalStack({ dataDir, inMemory: true, port: 0, schedulerIntervalMs: 0,
  fixtures: [{ name: 'r2', turns: [{ response: { content: [{ type: 'text', text: 'Logging.' }, { type: 'tool_use', name: 'notes_append', input: { name: 'log', line: 'x' } }] } }, { text: 'done' }] }],
  print: () => undefined });
const runIdBox: {id?: string} = {};
let lastRev = -1;
stack.store.ctx.doc.middlewareStack.add((next, context) => async (args) => { const r = await next(args); if (runIdBox.id && String(context.commandName).startsWith('Transact')) { const out = await stack.store.ctx.doc.send(new GetCommand({ TableName: stack.store.ctx.table, Key: { pk: `RUN#${runIdBox.id}`, sk: 'RUN' }, ConsistentRead: true })); const item = out.Item; if (item && item.rev !== lastRev) { lastRev = item.rev; console.log('rev', item.rev, item.status, billedItemBytes(item)); for (const [k, v] of Object.entries(item)) console.log('   ', k, k.length + billedValueBytes(v), JSON.stringify(v).slice(0, 160)); } } return r; }, { step: 'initialize', name: 'peekRun' });
const client = new ApiClient(stack.url, { kind: 'api-key', apiKey: stack.apiKey });
const { body: wf } = await client.post<any>('/v1/workflows', `name: r2
model: { id: claude-sonnet-5-5, maxTokens: 1024 }
prompt: { system: You keep the team log. }
allowedActions: [notes_append]
trigger: { type: on_demand }
budget: { maxUsdPerRun: 5, maxTurns: 20, maxToolCallsPerTurn: 4 }
`, { contentType: 'application/yaml' });
const { body } = await client.post<any>(`/v1/workflows/${wf.workflow.workflowId}/runs`, {}, { headers: { 'Idempotency-Key': randomUUID() } });
const runId = body.run.runId; runIdBox.id = runId;
const show = async (label: string) => {
  const out = await stack.store.ctx.doc.send(new GetCommand({ TableName: stack.store.ctx.table, Key: { pk: `RUN#${runId}`, sk: 'RUN' }, ConsistentRead: true }));
  const item = out.Item!;
  console.log(label, billedItemBytes(item));
  for (const [k, v] of Object.entries(item)) console.log('  ', k, k.length + billedValueBytes(v), JSON.stringify(v).slice(0, 200));
};
await new Promise(r => setTimeout(r, 4000));
await stack.stop();
process.exit(0);
