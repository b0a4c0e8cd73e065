/**
 * End-to-end support: a local stack on the test run's DynamoDB Local (its own table, its own data directory),
 * the API through the CLI's client, and an approver's browser (GET the page, POST its form).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Keyring, parseKeyring } from '../../shared/approvals/index.ts';
import type { AuditEntry } from '../../shared/audit/index.ts';
import { ApiClient } from '../../shared/cli/client.ts';
import { applyWorkflow } from '../../shared/cli/commands.ts';
import { type ApprovalForm, readApprovalForm } from '../../shared/demo/approve.ts';
import { type LocalStack, type LocalStackOptions, startLocalStack } from '../../shared/local/stack.ts';
import type { ScriptedFixture } from '../../shared/model/index.ts';
import type { Approval } from '../../shared/schemas/approval.ts';
import type { TranscriptMessage } from '../../shared/schemas/message.ts';
import type { Run, RunStatus } from '../../shared/schemas/run.ts';
import { testDefinitions } from '../support/local-definitions.ts';
import { refusalsFailStop } from '../support/sfn-refusals.ts';
import { createOwnTable as createOwnTableWithPrefix } from '../support/table.ts';

export const APPROVER = 'editor@example.com';

/** A fresh table on the run's DynamoDB Local (see test/support/table.ts). */
export const createOwnTable = () => createOwnTableWithPrefix('wf-e2e');

export type E2eStack = { stack: LocalStack; client: ApiClient; keyring: Keyring; dataDir: string };

/**
 * Starts a local stack for tests: loopback only, any free port, no scheduler, quiet, quick retries, the state
 * machines the test run synthesized once.
 */
export async function startE2eStack(
  table: { endpoint: string; tableName: string },
  options: Omit<LocalStackOptions, 'dynamodbEndpoint' | 'tableName'> & { dataDir: string },
): Promise<E2eStack> {
  const stack = await startLocalStack({
    port: 0,
    schedulerIntervalMs: 0,
    retryIntervalMs: 20,
    print: () => undefined,
    definitions: testDefinitions(),
    ...options,
    dynamodbEndpoint: table.endpoint,
    tableName: table.tableName,
  });
  const client = new ApiClient(stack.url, { kind: 'api-key', apiKey: stack.apiKey });
  const keyring = parseKeyring(readFileSync(join(options.dataDir, 'keyring.json'), 'utf8'));
  return { stack: refusalsFailStop(stack), client, keyring, dataDir: options.dataDir };
}

export const tempDataDir = () => mkdtemp(join(tmpdir(), 'wf-e2e-'));
export const removeDir = (dir: string) => rm(dir, { recursive: true, force: true });

/** Applies a workflow file (written to the data directory) the way `wf workflow apply -f` does; returns its id. */
export async function applyWorkflowText(e2e: E2eStack, name: string, yaml: string): Promise<string> {
  const file = join(e2e.dataDir, `${name}.workflow.yaml`);
  writeFileSync(file, yaml);
  const lines: string[] = [];
  const status = await applyWorkflow(e2e.client, file, {
    json: false,
    line: (text) => lines.push(text),
    data: () => undefined,
  });
  if (status !== 0) throw new Error(`workflow ${name} did not apply:\n${lines.join('\n')}`);
  const page = await e2e.client.get<{ items: { workflowId: string; name: string }[] }>(
    '/v1/workflows?limit=100',
  );
  const found = page.items.find((workflow) => workflow.name === name);
  if (!found) throw new Error(`workflow ${name} is not listed after apply`);
  return found.workflowId;
}

/**
 * A workflow whose only side effect is `notes_append`, gated `needs_approval` with the minimum timeout (60 s).
 * `extra` adds allowed actions (ungated).
 */
export function gatedNotesWorkflow(name: string, extra: string[] = []): string {
  return `name: ${name}
description: e2e - appends one line to a run note, only with a human's approval.
model: { id: claude-sonnet-5-5, maxTokens: 1024 }
prompt:
  system: Append the line you are asked to append with notes_append.
allowedActions: [notes_append${extra.map((action) => `, ${action}`).join('')}]
gates:
  notes_append: needs_approval
approvals:
  approvers: [${APPROVER}]
  timeoutSeconds: 60
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1, maxTurns: 4, maxToolCallsPerTurn: 4 }
`;
}

/** Turn 0 of the gated fixtures: the model asks to append one line to the note `log`. */
export const appendTurn = (line: string) => ({
  response: {
    content: [
      { type: 'text' as const, text: `I will record "${line}".` },
      { type: 'tool_use' as const, name: 'notes_append', input: { name: 'log', line } },
    ],
  },
});

export type Fixture = ScriptedFixture;

export async function startRun(e2e: E2eStack, workflowId: string): Promise<string> {
  const { body } = await e2e.client.post<{ run: Run }>(
    `/v1/workflows/${workflowId}/runs`,
    { input: { note: 'e2e' } },
    {
      headers: { 'Idempotency-Key': randomUUID() },
    },
  );
  return body.run.runId;
}

export const getRun = async (e2e: E2eStack, runId: string) =>
  (await e2e.client.get<{ run: Run }>(`/v1/runs/${runId}`)).run;

export type AuditView = {
  entries: AuditEntry[];
  verification: { ok: boolean; count?: number; message?: string };
};
export const getAudit = (e2e: E2eStack, runId: string) =>
  e2e.client.get<AuditView>(`/v1/runs/${runId}/audit`);

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const TERMINAL: RunStatus[] = ['done', 'failed', 'denied', 'cancelled'];

/** The run's Step Functions executions on this stack (the first one, and any resumed after a restart). */
export const executionsOf = async (e2e: E2eStack, runId: string) =>
  (await e2e.stack.sfn.listExecutions()).filter(
    (execution) => execution.name === runId || execution.name.startsWith(`${runId}-resume-`),
  );

/**
 * The run once it has ended (any terminal status) and its executions have finished: `done` is committed by
 * the Turn, and Deliver still writes (the delivery record and its audit entry) after it.
 */
export async function runEnded(e2e: E2eStack, runId: string, timeoutMs?: number): Promise<Run> {
  await eventually(
    `run ${runId} to end`,
    async () => (TERMINAL.includes((await getRun(e2e, runId)).status) ? true : undefined),
    timeoutMs,
  );
  for (const execution of await executionsOf(e2e, runId))
    await e2e.stack.sfn.waitForExecution(execution.executionArn);
  return getRun(e2e, runId);
}

/** The run parked on approval with its link sent: the approval and the approver's link from the inbox. */
export async function awaitingApproval(
  e2e: E2eStack,
  runId: string,
): Promise<{ run: Run; approval: Approval; link: string }> {
  return eventually(`run ${runId} to wait for approval with a link sent`, async () => {
    const notice = e2e.stack.inbox.notices().find((candidate) => candidate.runId === runId);
    if (!notice) return undefined;
    const run = await getRun(e2e, runId);
    const approvalId = run.pendingApprovalIds[0];
    const approval = approvalId ? await e2e.stack.store.getApproval(approvalId) : undefined;
    if (run.status !== 'awaiting_approval' || !approval?.taskToken) return undefined;
    return { run, approval, link: notice.url };
  });
}

/** What a refused request must leave untouched. */
export async function snapshot(e2e: E2eStack, runId: string, approvalId: string) {
  const [run, audit, approval] = await Promise.all([
    getRun(e2e, runId),
    getAudit(e2e, runId),
    e2e.stack.store.getApproval(approvalId),
  ]);
  return { status: run.status, rev: run.rev, auditCount: audit.entries.length, approval };
}

export const noteLines = async (e2e: E2eStack, runId: string) =>
  (await e2e.stack.store.getNoteLines(runId, 'log')) ?? [];

export type PageForm = ApprovalForm;

/** GETs the approval page as a browser would and reads its form. */
export async function openPage(link: string): Promise<PageForm> {
  const response = await fetch(link);
  const html = await response.text();
  if (response.status !== 200) throw new Error(`the approval page answered ${response.status}`);
  return readApprovalForm(html, link);
}

/** A form's hidden fields, as a browser posts them with the clicked button. */
export const hiddenFields = (form: PageForm) => ({
  t: form.t,
  nonce: form.nonce,
  ...(form.state === undefined ? {} : { state: form.state }),
});

/** POSTs a decision form (urlencoded, like the page's buttons). */
export async function postForm(
  action: string,
  fields: { t: string; nonce: string; state?: string; decision: string },
): Promise<{ status: number; page: string }> {
  const response = await fetch(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, page: await response.text() };
}

/** The link's token (`t`). */
export const tokenOf = (link: string) => new URL(link).searchParams.get('t') ?? '';

/** The same link with another token. */
export function withToken(link: string, token: string): string {
  const url = new URL(link);
  url.searchParams.set('t', token);
  return url.toString();
}

/** The tool result the model received for `tool`, from the stored transcript. */
export async function toolResultFor(
  e2e: E2eStack,
  runId: string,
  tool: string,
): Promise<{ content: string; isError: boolean } | undefined> {
  const { messages } = await e2e.client.get<{ messages: TranscriptMessage[] }>(
    `/v1/runs/${runId}/transcript`,
  );
  const blocks = messages.flatMap((message) => message.content);
  const use = blocks.find((block) => block.type === 'tool_use' && block.name === tool);
  const result = blocks.find(
    (block) =>
      block.type === 'tool_result' && block.tool_use_id === (use?.type === 'tool_use' ? use.id : undefined),
  );
  return result?.type === 'tool_result'
    ? { content: result.content, isError: result.is_error === true }
    : undefined;
}
