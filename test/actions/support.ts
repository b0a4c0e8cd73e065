/**
 * Test support for the actions: local fakes of remote services (node:http on 127.0.0.1 that record what
 * they received), a real file-backed secrets port, an action context on a loopback-only egress guard, and
 * workflow definitions parsed through the workflow schema (so defaults apply as in production).
 */

import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Action, RunScope } from '../../shared/core/actions.ts';
import type { ActionContext, SecretsPort } from '../../shared/core/ports.ts';
import { fileSecrets } from '../../shared/credentials/index.ts';
import { createEgress, type EgressPolicy } from '../../shared/egress/index.ts';
import { asAgentDefinition } from '../../shared/schemas/any-workflow.ts';
import type { WorkflowDefinition } from '../../shared/schemas/workflow.ts';
import { validateWorkflowDefinition } from '../../shared/workflow-file/parse.ts';
import { FixedClock } from '../support/store.ts';

export type Received = { method: string; path: string; headers: http.IncomingHttpHeaders; body: string };
export type Reply = { status?: number; headers?: Record<string, string>; body?: string };

export type FakeRemote = {
  port: number;
  origin: string;
  received: Received[];
  close(): Promise<void>;
};

/**
 * A fake remote on 127.0.0.1 (random port): records each request, answers with `reply(request)` (text/plain
 * when the reply gives no headers).
 */
export async function fakeRemote(
  reply: (request: Received) => Reply = () => ({ body: 'ok' }),
): Promise<FakeRemote> {
  const received: Received[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    received.push(request);
    const answer = reply(request);
    res.writeHead(answer.status ?? 200, answer.headers ?? { 'content-type': 'text/plain; charset=utf-8' });
    res.end(answer.body ?? '');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    received,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A real file-backed secrets port (the local stand-in for Secrets Manager) holding `values`. */
export function secretsFile(values: Record<string, unknown>): SecretsPort {
  const dir = mkdtempSync(join(tmpdir(), 'wf-actions-'));
  const path = join(dir, 'secrets.json');
  writeFileSync(path, JSON.stringify(values));
  return fileSecrets(path);
}

export type TestContext = ActionContext & { scope: RunScope };

/** An action context whose egress guard reaches exactly the given loopback ports. */
export function actionContext(args: {
  ports: number[];
  secrets: SecretsPort;
  idempotencyKey?: string;
  clock?: FixedClock;
  policy?: EgressPolicy;
  /** The run's owner, whose credentials (`wf/<ownerKey>/…`) the context may resolve. @default 'owner-test' */
  owner?: string;
}): TestContext {
  return {
    idempotencyKey: args.idempotencyKey ?? 'idem_run1_t0_toolu_1',
    egress: createEgress({ allowLoopbackPorts: args.ports, ...args.policy }),
    secrets: args.secrets,
    clock: args.clock ?? new FixedClock(),
    scope: { runId: 'run_test', owner: args.owner ?? 'owner-test', workflowId: 'wf_test' },
  };
}

/** A workflow definition (parsed, defaults applied) with the given fields on top of a minimal one. */
export function definitionWith(fields: Record<string, unknown>): WorkflowDefinition {
  const parsed = validateWorkflowDefinition({
    name: 'actions-test',
    model: { id: 'claude-sonnet-5-5' },
    prompt: { system: 'You are a test.' },
    allowedActions: ['current_time'],
    trigger: { type: 'on_demand' },
    budget: { maxUsdPerRun: 1 },
    approvals: { approvers: ['boss@example.com'] },
    ...fields,
  });
  if (!parsed.ok) throw new Error(`test workflow is invalid: ${JSON.stringify(parsed.errors)}`);
  return asAgentDefinition(parsed.definition);
}

/** Parses with the action's own schema (as the gate does), then runs it. */
export async function runParsed(action: Action, input: unknown, ctx: TestContext) {
  return action.run(action.input.parse(input), ctx);
}
