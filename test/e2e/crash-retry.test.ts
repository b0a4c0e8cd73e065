/**
 * A Turn killed between dispatch and settle, on the local stack: the synthesized definition's `Retry` re-runs
 * the Turn (as on AWS, where the crash is `Lambda.Unknown` and a function timeout `Sandbox.Timedout`), and the
 * ledger's crash recovery decides what each call becomes. Loopback receivers count what actually arrived.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TurnDeps } from '../../shared/core/engine.ts';
import type { RunChange } from '../../shared/core/store-port.ts';
import { LambdaFault } from '../../shared/local/sfn/index.ts';
import { type FakeRemote, fakeRemote } from '../actions/support.ts';
import { withStoreOverrides } from '../support/store-overrides.ts';
import {
  applyWorkflowText,
  createOwnTable,
  type E2eStack,
  executionsOf,
  getAudit,
  removeDir,
  runEnded,
  startE2eStack,
  startRun,
  tempDataDir,
} from './support.ts';

const NAME = 'e2e-crash-retry';

/** Three connectors on one loopback receiver: two idempotent (PUT), one not (POST). */
const workflow = (origin: string) => `name: ${NAME}
description: e2e - three remote calls in one turn; the Turn crashes twice between dispatch and settle.
model: { id: claude-sonnet-5-5, maxTokens: 1024 }
prompt:
  system: Update the ticket.
allowedActions: [set_status, post_comment, set_label]
connectors:
  set_status:
    kind: http
    description: Set the ticket status.
    method: PUT
    url: ${origin}/status
    input: { type: object, properties: { status: { type: string } }, required: [status] }
    idempotent: true
  post_comment:
    kind: http
    description: Add a comment (not idempotent).
    method: POST
    url: ${origin}/comments
    input: { type: object, properties: { text: { type: string } }, required: [text] }
  set_label:
    kind: http
    description: Set the ticket label.
    method: PUT
    url: ${origin}/label
    input: { type: object, properties: { label: { type: string } }, required: [label] }
    idempotent: true
gates: { set_status: allow, post_comment: allow, set_label: allow }
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1, maxTurns: 4, maxToolCallsPerTurn: 4 }
`;

const toolUse = (id: string, name: string, input: Record<string, string>) => ({
  type: 'tool_use' as const,
  id,
  name,
  input,
});

const fixtures = [
  {
    name: NAME,
    turns: [
      {
        response: {
          content: [
            { type: 'text' as const, text: 'Updating the ticket.' },
            toolUse('toolu_status', 'set_status', { status: 'closed' }),
            toolUse('toolu_comment', 'post_comment', { text: 'Fixed in 1.2.' }),
            toolUse('toolu_label', 'set_label', { label: 'done' }),
          ],
        },
      },
      {
        expect: {
          toolResults: [
            { toolUseId: 'toolu_status', contains: 'HTTP 200', isError: false },
            { toolUseId: 'toolu_comment', contains: 'Outcome unknown', isError: true },
            { toolUseId: 'toolu_label', contains: 'HTTP 200', isError: false },
          ],
        },
        text: 'Ticket updated; the comment may need checking.',
      },
    ],
  },
];

/**
 * The Turn's store, with one fault per listed tool: the commit that would settle that tool's call never
 * happens, because the invocation dies first (the call was already dispatched).
 */
function killBeforeSettle(faults: Record<string, 'crash' | 'timeout'>, thrown: string[]) {
  return (deps: TurnDeps): TurnDeps => {
    const pending = new Map(Object.entries(faults));
    const store = withStoreOverrides(deps.store, {
      commit: async (change: RunChange) => {
        for (const row of change.ledgerSettle ?? []) {
          const kind = pending.get(row.tool);
          if (kind === undefined) continue;
          pending.delete(row.tool);
          thrown.push(`${kind}:${row.tool}`);
          throw new LambdaFault(kind, `killed before settling ${row.tool}`);
        }
        return deps.store.commit(change);
      },
    });
    return { ...deps, store };
  };
}

let table: { endpoint: string; tableName: string };
let dataDir: string;
let remote: FakeRemote;
let e2e: E2eStack | undefined;
const thrown: string[] = [];

beforeAll(async () => {
  table = await createOwnTable();
  dataDir = await tempDataDir();
  remote = await fakeRemote(() => ({ body: 'ok' }));
  e2e = await startE2eStack(table, {
    dataDir,
    fixtures,
    allowLoopbackPorts: [remote.port],
    // The remote stands for an internal service: its unsafe calls run without approval, as this test needs.
    internalHosts: ['127.0.0.1'],
    wrapTurnDeps: killBeforeSettle({ post_comment: 'crash', set_label: 'timeout' }, thrown),
  });
});

afterAll(async () => {
  await e2e?.stack.stop();
  await remote?.close();
  await removeDir(dataDir);
});

describe('A Turn killed between dispatch and settle', () => {
  it('is retried by the state machine: no repeated non-idempotent call, the idempotent one re-sent with its key', async () => {
    // Prepare
    const stack = e2e!;
    const workflowId = await applyWorkflowText(stack, NAME, workflow(remote.origin));

    // Act: one run; its first Turn dies after sending post_comment, its retry dies after sending set_label.
    const runId = await startRun(stack, workflowId);
    const run = await runEnded(stack, runId);

    // Assess: the run finished, in its first execution (the state machine retried; nothing resumed it).
    expect(thrown).toEqual(['crash:post_comment', 'timeout:set_label']);
    expect(run).toMatchObject({
      status: 'done',
      modelCalls: 2,
      result: { text: 'Ticket updated; the comment may need checking.' },
    });
    const executions = await executionsOf(stack, runId);
    expect(executions.map((execution) => [execution.name, execution.status])).toEqual([[runId, 'SUCCEEDED']]);

    // What the receiver got: the settled call once (reused), the non-idempotent one once (never repeated),
    // the idempotent one twice with the same Idempotency-Key.
    const byPath = (path: string) => remote.received.filter((request) => request.path === path);
    expect(byPath('/status')).toHaveLength(1);
    expect(byPath('/comments')).toHaveLength(1);
    const labels = byPath('/label');
    expect(labels).toHaveLength(2);
    expect(labels[0]?.headers['idempotency-key']).toBeTruthy();
    expect(labels[1]?.headers['idempotency-key']).toBe(labels[0]?.headers['idempotency-key']);
    expect(labels.map((request) => request.body)).toEqual(['{"label":"done"}', '{"label":"done"}']);
    const keys = [byPath('/status')[0], byPath('/comments')[0], labels[0]].map(
      (request) => request?.headers['idempotency-key'],
    );
    expect(new Set(keys).size).toBe(3);

    // The ledger and the audit chain tell the same story, and the chain verifies.
    const ledger = await stack.stack.store.listLedger(runId);
    expect(Object.fromEntries(ledger.map((row) => [row.tool, row.status]))).toEqual({
      set_status: 'completed',
      post_comment: 'failed',
      set_label: 'completed',
    });
    const audit = await getAudit(stack, runId);
    expect(audit.verification.ok).toBe(true);
    expect(
      audit.entries.filter((entry) => (entry.data as { outcomeUnknown?: boolean }).outcomeUnknown),
    ).toEqual([expect.objectContaining({ data: expect.objectContaining({ tool: 'post_comment' }) })]);
  });
});
