/**
 * A cancel while a POST is in flight, on the local stack: the receiver has read the request and holds its
 * answer while the owner cancels through the API. The run ends cancelled; the model's transcript and the
 * ledger say "outcome unknown" for the POST (the receiver got it), never "not executed"; nothing is sent twice.
 * The POST is gated (needs_approval) and approved through the page, so the test holds whatever the default
 * gate of an unsafe method is.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '../../shared/schemas/run.ts';
import {
  APPROVER,
  applyWorkflowText,
  awaitingApproval,
  createOwnTable,
  type E2eStack,
  eventually,
  getAudit,
  hiddenFields,
  openPage,
  postForm,
  removeDir,
  runEnded,
  startE2eStack,
  startRun,
  tempDataDir,
  toolResultFor,
} from './support.ts';

let receiver: Server;
let receiverPort: number;
const received: string[] = [];
let release: () => void = () => undefined;
const released = new Promise<void>((resolve) => {
  release = resolve;
});

let e2e: E2eStack;
let dataDir: string;
let workflowId: string;

const workflow = (name: string) => `name: ${name}
description: e2e - posts one order to a receiver, with a human's approval.
model: { id: claude-sonnet-5-5, maxTokens: 1024 }
prompt:
  system: Post the order with http_request.
allowedActions: [http_request]
gates:
  http_request: needs_approval
approvals:
  approvers: [${APPROVER}]
  timeoutSeconds: 600
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1, maxTurns: 4, maxToolCallsPerTurn: 4 }
`;

beforeAll(async () => {
  // Reads the whole request, then answers only once the test has cancelled the run.
  receiver = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    received.push(Buffer.concat(chunks).toString('utf8'));
    await released;
    response.writeHead(201, { 'content-type': 'application/json' }).end('{"order":"o-1"}');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverPort = (receiver.address() as { port: number }).port;
  dataDir = await tempDataDir();
  e2e = await startE2eStack(await createOwnTable(), {
    dataDir,
    allowLoopbackPorts: [receiverPort],
    fixtures: [
      {
        name: 'e2e-cancel-post',
        turns: [
          {
            response: {
              content: [
                { type: 'text', text: 'Posting the order.' },
                {
                  type: 'tool_use',
                  name: 'http_request',
                  input: {
                    method: 'POST',
                    url: `http://127.0.0.1:${receiverPort}/orders`,
                    body: { item: 'widget' },
                  },
                },
              ],
            },
          },
          { text: 'Posted.' },
        ],
      },
    ],
  });
  workflowId = await applyWorkflowText(e2e, 'e2e-cancel-post', workflow('e2e-cancel-post'));
});

afterAll(async () => {
  release();
  await e2e?.stack.stop();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await removeDir(dataDir);
});

describe('Cancel while a POST is in flight', () => {
  it('ends the run cancelled and tells the model the POST outcome is unknown, never "not executed"', async () => {
    // Prepare: the run waits for approval; the approver approves; the receiver reads the POST and holds it.
    const runId = await startRun(e2e, workflowId);
    const { link } = await awaitingApproval(e2e, runId);
    const form = await openPage(link);
    const decided = await postForm(form.action, { ...hiddenFields(form), decision: 'approve' });
    expect(decided.status).toBe(200);
    await eventually('the receiver to read the POST', async () => (received.length > 0 ? true : undefined));

    // Act: the owner cancels while the POST is in flight, then the receiver answers.
    const { body } = await e2e.client.post<{ run: Run }>(`/v1/runs/${runId}/cancel`, {});
    release();
    const run = await runEnded(e2e, runId);

    // Assess
    expect(body.run.status).toBe('cancelled');
    expect(run).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    expect(received).toEqual(['{"item":"widget"}']);
    const result = await toolResultFor(e2e, runId, 'http_request');
    expect(result).toEqual({
      content: expect.stringMatching(
        /^Outcome unknown: this call was dispatched, but the run was cancelled before its result was recorded/,
      ),
      isError: true,
    });
    const ledger = await e2e.stack.store.listLedger(runId);
    expect(ledger).toEqual([
      expect.objectContaining({ tool: 'http_request', status: 'failed', outcomeUnknown: true }),
    ]);
    const audit = await getAudit(e2e, runId);
    expect(audit.verification.ok).toBe(true);
    // The model was asked once: the cancel did not let the run continue.
    expect(run.modelCalls).toBe(1);
  });
});
