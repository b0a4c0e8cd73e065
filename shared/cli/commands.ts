/** The `wf` commands. Each talks to the HTTP API and returns an exit status; output goes through `out`. */
import { readFileSync } from 'node:fs';
import canonicalize from 'canonicalize';
import { cutText } from '../core/byte-caps.ts';
import { type RunAuditPage, readRunAudit } from '../runs/audit-reader.ts';
import { readWholeTranscript, type TranscriptPageBody } from '../runs/transcript-reader.ts';
import type { Approval } from '../schemas/approval.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowHead, WorkflowVersion } from '../schemas/workflow-record.ts';
import { parseWorkflowText } from '../workflow-file/index.ts';
import type { ApiClient } from './client.ts';
import { type Colours, colours } from './colour.ts';
import { firstFilledPage, noneLine } from './follow-pages.ts';
import { cacheText } from './progress.ts';
import { refusedCalls, refusedLines } from './run-calls.ts';
import { watchRun } from './watch.ts';

export type Output = { json: boolean; line(text: string): void; data(value: unknown): void };

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A workflow by id (`wf_…`) or by name. */
export async function findWorkflow(client: ApiClient, ref: string): Promise<WorkflowHead> {
  if (ref.startsWith('wf_'))
    return (await client.get<{ workflow: WorkflowHead }>(`/v1/workflows/${ref}`)).workflow;
  let nextToken: string | undefined;
  do {
    const page = await client.get<{ items: WorkflowHead[]; nextToken?: string }>(
      `/v1/workflows?limit=100${nextToken ? `&nextToken=${encodeURIComponent(nextToken)}` : ''}`,
    );
    const match = page.items.find((workflow) => workflow.name === ref);
    if (match) return match;
    nextToken = page.nextToken;
  } while (nextToken);
  throw new UsageError(`no workflow named '${ref}'`);
}

/** Equal definitions, whatever their key order: canonical JSON (RFC 8785) of each, defaults applied. */
export const sameDefinition = (a: unknown, b: unknown): boolean => canonicalize(a) === canonicalize(b);

/** ` by <author>` for a version that records its author (versions saved before authors were recorded do not). */
const byAuthor = (version: WorkflowVersion) => (version.author ? ` by ${version.author}` : '');

/** `wf workflow apply -f FILE`: create it, or add a version when the definition changed. */
export async function applyWorkflow(client: ApiClient, file: string, out: Output): Promise<number> {
  const text = readFileSync(file, 'utf8');
  const parsed = parseWorkflowText(text);
  if (!parsed.ok) {
    out.data({ ok: false, file, errors: parsed.errors });
    out.line(`${file}: invalid workflow definition`);
    for (const error of parsed.errors) out.line(`  - ${error.path}: ${error.message}`);
    return 1;
  }
  const contentType = /\.ya?ml$/.test(file) ? 'application/yaml' : 'application/json';
  let existing: WorkflowHead | undefined;
  try {
    existing = await findWorkflow(client, parsed.definition.name);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
  }
  if (!existing) {
    const { body } = await client.post<{ workflow: WorkflowHead; version: WorkflowVersion }>(
      '/v1/workflows',
      text,
      { contentType },
    );
    out.data(body);
    out.line(
      `created ${body.workflow.name} (${body.workflow.workflowId}), version 1${byAuthor(body.version)}`,
    );
    return 0;
  }
  const current = await client.get<{ version: WorkflowVersion }>(`/v1/workflows/${existing.workflowId}`);
  // Both parsed with defaults applied; canonical JSON (RFC 8785) ignores key order, event patterns' too.
  if (sameDefinition(current.version.definition, parsed.definition)) {
    out.data({ workflow: existing, version: current.version, unchanged: true });
    out.line(`${existing.name} (${existing.workflowId}) is unchanged at version ${existing.latestVersion}`);
    return 0;
  }
  const { body } = await client.post<{ workflow: WorkflowHead; version: WorkflowVersion }>(
    `/v1/workflows/${existing.workflowId}/versions`,
    text,
    {
      contentType,
      headers: { 'If-Match': String(existing.latestVersion) },
    },
  );
  out.data(body);
  out.line(
    `updated ${body.workflow.name} (${body.workflow.workflowId}) to version ${body.version.version}${byAuthor(body.version)}`,
  );
  return 0;
}

export async function listWorkflows(client: ApiClient, out: Output): Promise<number> {
  const page = await client.get<{ items: WorkflowHead[] }>('/v1/workflows?limit=100');
  out.data(page);
  if (page.items.length === 0) out.line('no workflows yet: wf workflow apply -f FILE');
  for (const wf of page.items)
    out.line(
      `${wf.workflowId}  ${wf.name.padEnd(24)} v${wf.latestVersion}  ${wf.enabled ? 'enabled' : 'disabled'}${wf.draftVersion ? `  draft v${wf.draftVersion}` : ''}`,
    );
  return 0;
}

/**
 * One line per run; a degraded run says so and names what was refused; an external run waiting on its engine's
 * capacity says so, with the engine's answer and the next attempt (docs/external-workflows.md).
 */
const runLine = (run: Run) =>
  `${run.runId}  ${run.workflowName} v${run.workflowVersion}  ${run.status}${run.stopReason ? ` (${run.stopReason})` : ''}  $${run.costUsd.toFixed(4)}${
    run.degraded
      ? `  degraded: ${run.degraded.count} refused (${[...new Set(run.degraded.refused.map((r) => r.tool))].join(', ')})`
      : ''
  }${capacityNote(run)}`;

const capacityNote = (run: Run): string => {
  const capacity = run.external?.capacity;
  if (!capacity?.nextAttemptAt) return '';
  return `  waiting: engine at capacity (${capacity.detail}), attempt ${capacity.attempts + 1} at ${capacity.nextAttemptAt}`;
};

export async function startRunCommand(
  client: ApiClient,
  args: { workflow: string; input?: string; wait: boolean; idempotencyKey?: string; intervalMs?: number },
  out: Output,
  /** Told the run once it ended (with `wait`): `--record` fetches its recording then. */
  onEnded?: (run: Run) => Promise<void>,
): Promise<number> {
  let input: unknown;
  if (args.input !== undefined) {
    try {
      input = JSON.parse(args.input);
    } catch {
      throw new UsageError('--input must be JSON, e.g. --input \'{"topic":"x"}\'');
    }
  }
  const workflow = await findWorkflow(client, args.workflow);
  const { body } = await client.post<{ run: Run }>(
    `/v1/workflows/${workflow.workflowId}/runs`,
    input === undefined ? {} : { input },
    {
      ...(args.idempotencyKey ? { headers: { 'Idempotency-Key': args.idempotencyKey } } : {}),
    },
  );
  out.line(`started ${body.run.runId} (${workflow.name} v${body.run.workflowVersion})`);
  if (!args.wait) {
    out.data(body);
    return 0;
  }
  const run = await watchRun(client, body.run.runId, {
    ...(args.intervalMs === undefined ? {} : { intervalMs: args.intervalMs }),
    print: (line) => out.line(line),
    onAwaitingApproval: () =>
      out.line(
        `waiting for approval: the approvers have their links (locally: ${client.baseUrl}/local/inbox)`,
      ),
  });
  await onEnded?.(run);
  out.data({ run });
  out.line(runLine(run));
  return run.status === 'done' ? 0 : 3;
}

export async function showRun(
  client: ApiClient,
  runId: string,
  out: Output,
  c: Colours = colours(false),
): Promise<number> {
  const { run } = await client.get<{ run: Run }>(`/v1/runs/${runId}`);
  const refused = await refusedCalls(client, run.runId);
  out.data({ run, refusedCalls: refused });
  out.line(runLine(run));
  out.line(`  trigger: ${JSON.stringify(run.trigger)}`);
  out.line(
    `  turns: ${run.modelCalls} model call(s); tokens ${run.usage.inputTokens} in / ${run.usage.outputTokens} out; ${cacheText(run.usage)}`,
  );
  if (run.result?.text) out.line(`  result: ${run.result.text}`);
  if (run.error) out.line(`  error: ${run.error.name}: ${run.error.message}`);
  // A schedule's or an event's run that ended without starting, and the run its trigger started in its place.
  if (run.replacedBy) out.line(`  replaced by ${run.replacedBy}`);
  if ('replacesRunId' in run.trigger && run.trigger.replacesRunId)
    out.line(`  replaces ${run.trigger.replacesRunId}`);
  for (const line of refusedLines(refused, c)) out.line(line);
  return 0;
}

export async function showTranscript(client: ApiClient, runId: string, out: Output): Promise<number> {
  // Paged by the API (each page within a Lambda response); the CLI reads them all.
  const messages = await readWholeTranscript(runId, (path) => client.get<TranscriptPageBody>(path));
  const body = { runId, messages };
  out.data(body);
  for (const message of body.messages) {
    for (const block of message.content) {
      if (block.type === 'text') out.line(`${message.role}: ${block.text}`);
      if (block.type === 'tool_use')
        out.line(`${message.role}: → ${block.name} ${JSON.stringify(block.input)}`);
      if (block.type === 'tool_result')
        out.line(`${message.role}: ← ${block.is_error ? '(error) ' : ''}${cutText(block.content, 300)}`);
    }
  }
  return 0;
}

export async function verifyAudit(client: ApiClient, runId: string, out: Output): Promise<number> {
  const body = await readRunAudit(runId, (path) => client.get<RunAuditPage>(path));
  const unanchored = body.verification.ok && body.anchor !== null && !body.anchored;
  // `--json` gives the same verdict as the exit status: a chain that verifies but no longer matches its anchor
  // in the owner's chain (rewritten after the run ended) is not ok.
  out.data(
    unanchored
      ? {
          ok: false,
          reason: 'anchor_mismatch',
          message: `the chain does not match its anchor in the owner's chain (seq ${body.anchor!.seq})`,
          count: body.verification.ok ? body.verification.count : 0,
          anchor: body.anchor,
        }
      : { ...body.verification, anchor: body.anchor, anchored: body.anchored },
  );
  if (body.verification.ok) {
    out.line(`audit chain verified: ${body.verification.count} entries`);
    out.line(
      body.anchor
        ? body.anchored
          ? `anchored in the owner's chain at seq ${body.anchor.seq}`
          : `NOT matching its anchor in the owner's chain (seq ${body.anchor.seq})`
        : 'not anchored yet (the run has not finished)',
    );
    return body.anchor && !body.anchored ? 4 : 0;
  }
  out.line(`audit chain BROKEN at entry ${body.verification.firstBrokenSeq}: ${body.verification.message}`);
  return 4;
}

export async function listApprovals(
  client: ApiClient,
  status: string | undefined,
  out: Output,
): Promise<number> {
  const page = await firstFilledPage<Approval>(
    client,
    `/v1/approvals${status ? `?status=${encodeURIComponent(status)}` : ''}`,
  );
  out.data(page);
  if (page.items.length === 0) out.line(noneLine('no approvals', page));
  for (const approval of page.items) {
    out.line(
      `${approval.approvalId}  ${approval.status.padEnd(8)} ${approval.tool}  run ${approval.runId}  expires ${approval.expiresAt}`,
    );
  }
  return 0;
}

export async function putEvent(
  client: ApiClient,
  args: { source: string; detailType: string; detail: string; id?: string },
  out: Output,
): Promise<number> {
  let detail: unknown;
  try {
    detail = JSON.parse(args.detail);
  } catch {
    throw new UsageError('--detail must be JSON');
  }
  // A PutEvents entry always gets a new event id; an event envelope keeps its own (a redelivery).
  const event = args.id
    ? { id: args.id, source: args.source, 'detail-type': args.detailType, detail }
    : { Entries: [{ Source: args.source, DetailType: args.detailType, Detail: args.detail }] };
  const { body } = await client.post<{ FailedEntryCount: number; Entries: unknown[]; runs?: unknown[] }>(
    '/local/events',
    event,
  );
  out.data(body);
  out.line(`event accepted; ${JSON.stringify(body.runs ?? [])}`);
  return body.FailedEntryCount > 0 ? 1 : 0;
}

/** `wf whoami`: the caller's owner and principal, and the name prefix and tag their credential secrets need. */
export async function whoami(client: ApiClient, out: Output): Promise<number> {
  const me = await client.get<{ owner: string; principal: string; ownerKey: string; secretPrefix: string }>(
    '/v1/me',
  );
  out.line(`owner:      ${me.owner}`);
  out.line(`principal:  ${me.principal}`);
  out.line(`owner key:  ${me.ownerKey}`);
  out.line(`credential secrets: ${me.secretPrefix}<name>, tagged wf-owner=${me.ownerKey}`);
  out.data(me);
  return 0;
}
