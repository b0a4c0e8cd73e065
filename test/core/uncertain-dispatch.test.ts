/**
 * A turn whose approved POST was read by a real loopback receiver that then hung past the egress deadline:
 * the ledger settles it `failed` with the `outcomeUnknown` marker (audit too), and the model is told the
 * outcome is unknown, not that the request was not completed. The POST is gated and approved so the test
 * holds whatever the default gate of an unsafe method is.
 */
import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorActions, createActionCatalog, httpBuiltins } from '../../shared/actions/index.ts';
import { decideApproval } from '../../shared/core/approval-ops.ts';
import type { ContentBlock } from '../../shared/core/ports.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { createEgress } from '../../shared/egress/index.ts';
import { engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
let hanging: net.Server;
let port: number;
const requests: string[] = [];

beforeAll(async () => {
  hanging = net.createServer((socket) => {
    socket.on('data', (chunk: Buffer) => requests.push(chunk.toString('utf8')));
    socket.on('error', () => {});
  });
  hanging.listen(0, '127.0.0.1');
  await once(hanging, 'listening');
  port = (hanging.address() as net.AddressInfo).port;
});
afterAll(async () => {
  hanging.close();
});

describe('a sent POST that never got an answer, inside a turn', () => {
  it('settles outcome unknown in the ledger and the audit, and the model reads so', async () => {
    // Prepare
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({
        allowedActions: ['http_request'],
        gates: { http_request: 'needs_approval' },
        approvals: { approvers: ['boss@example.com'], timeoutSeconds: 600 },
      }),
    );
    const run = await seedRun(store, version);
    const model = new ScriptedModel([
      {
        content: [
          text('Posting.'),
          toolUse('h1', 'http_request', { method: 'POST', url: `http://127.0.0.1:${port}/o`, body: 'x=1' }),
        ],
        stopReason: 'tool_use',
      },
      { content: [text('Checking before retrying.')], stopReason: 'end_turn' },
    ]);
    const clock = new FixedClock();
    const deps = engineDeps(store, model, {
      clock,
      egress: createEgress({ allowLoopbackPorts: [port], totalTimeoutMs: 300, headersTimeoutMs: 200 }),
      actions: createActionCatalog({
        notes: store,
        httpBuiltins: httpBuiltins(),
        connectorAction: connectorActions(),
      }),
    });
    const waiting = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    expect(waiting.next).toBe('await_approval');
    const approvalId = (await store.getRun(run.runId))!.pendingApprovalIds[0]!;
    await decideApproval(
      { store, clock },
      { approvalId, approver: 'boss@example.com', decision: 'approved' },
    );

    // Act
    const next = await runTurn(deps, { runId: run.runId, turn: waiting.turn, segmentStartTurn: 0 });
    const done = await runTurn(deps, { runId: run.runId, turn: next.turn, segmentStartTurn: 0 });

    // Assess
    expect(done.next).toBe('done');
    expect(requests.join('')).toContain('x=1');
    const [row] = await store.listLedger(run.runId);
    expect(row).toMatchObject({ tool: 'http_request', status: 'failed', outcomeUnknown: true });
    expect(row?.outcome?.content).toMatch(/^Outcome unknown: the POST request was sent.*timeout/);
    const audit = await store.listAudit(run.runId);
    expect(audit.find((entry) => entry.type === 'settle')?.data).toMatchObject({ outcomeUnknown: true });
    const answer = model.requests.at(-1)!.messages.at(-1)!.content as ContentBlock[];
    expect(answer).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'h1',
        content: expect.stringMatching(/^Outcome unknown: .*NOT repeated/),
        is_error: true,
      },
    ]);
  });
});
