/**
 * One run: its state, cancel (while it is not finished), the audit verification, the timeline from the audit
 * chain, the receipts of its side effects and the transcript. A run that is still going reloads itself every few seconds.
 */
import { html } from 'hono/html';
import type { Identity } from '../../api/deps.ts';
import type { AuditEntry } from '../../audit/index.ts';
import type { Receipt } from '../../runs/receipts.ts';
import type { TranscriptPageBody } from '../../runs/transcript-reader.ts';
import { isTerminalRunStatus, type Run } from '../../schemas/run.ts';
import { apiGet, type ConsoleDeps } from '../deps.ts';
import { type Fragment, page, usd, when } from '../layout.ts';
import { graphSection } from './graph.ts';
import { receipts } from './receipts.ts';
import { timeline } from './timeline.ts';
import { transcript } from './transcript.ts';

type Verification = { ok: true; count: number } | { ok: false; firstBrokenSeq?: number; message?: string };
type AuditAnswer = {
  entries: AuditEntry[];
  from: { seq: number };
  verification: Verification;
  anchored: boolean;
  nextToken?: string;
};

const verificationLine = (audit: AuditAnswer) => {
  if (!audit.verification.ok)
    return html`<p id="verification" class="bad">Audit chain BROKEN at entry ${audit.verification.firstBrokenSeq ?? '?'}:
${audit.verification.message ?? 'unknown reason'}</p>`;
  const { count } = audit.verification;
  // One page of a chain too long for one answer: the entries it verified, linked from the page before.
  if (audit.nextToken !== undefined || audit.from.seq > 0)
    return html`<p id="verification" class="ok">Audit entries ${audit.from.seq} to ${audit.from.seq + count - 1}
verified: hashes linked${audit.from.seq > 0 ? ' from the previous page' : ''}${audit.anchored ? ', ending at the head anchored in the owner chain' : ''}.</p>`;
  return html`<p id="verification" class="ok">Audit chain verified: ${count} entries, hashes
linked${audit.anchored ? ' and anchored in the owner chain' : ''}.</p>`;
};

/** Links to the first and the next page of a chain the API pages (shared/api/routes/run-audit.ts). */
const auditLinks = (audit: AuditAnswer, runId: string) =>
  html`${audit.from.seq > 0 ? html`<p><a href="/console/runs/${runId}">First audit entries</a></p>` : ''}${
    audit.nextToken
      ? html`<p><a id="audit-next" href="/console/runs/${runId}?audit=${encodeURIComponent(audit.nextToken)}"
>Later audit entries</a></p>`
      : ''
  }`;

/**
 * One run's page; `transcriptToken` (the `transcript` query parameter) shows a later page of its transcript,
 * `auditToken` (`audit`) a later page of its audit chain: the API pages both so each answer fits a Lambda
 * response (shared/runs/transcript-page.ts, shared/api/routes/run-audit.ts).
 */
export async function runPage(
  deps: ConsoleDeps,
  identity: Identity,
  runId: string,
  transcriptToken?: string,
  auditToken?: string,
): Promise<Fragment> {
  const path = `/v1/runs/${encodeURIComponent(runId)}`;
  const { run } = await apiGet<{ run: Run }>(deps.api, identity, path);
  const pageOf = (token: string | undefined) => (token ? `?nextToken=${encodeURIComponent(token)}` : '');
  const [audit, messages, sideEffects] = await Promise.all([
    apiGet<AuditAnswer>(deps.api, identity, `${path}/audit${pageOf(auditToken)}`),
    apiGet<TranscriptPageBody>(deps.api, identity, `${path}/transcript${pageOf(transcriptToken)}`),
    apiGet<{ items: Receipt[]; nextToken?: string }>(deps.api, identity, `${path}/receipts?limit=100`),
  ]);
  const live = !isTerminalRunStatus(run.status);
  const cancel = live
    ? html`<form method="post" action="/console/runs/${run.runId}/cancel" class="inline">
<button type="submit">Cancel this run</button></form>`
    : '';
  const u = run.usage;
  const summary = html`<table id="run"><tr><th>Workflow</th><td><a href="/console/runs?workflow=${run.workflowId}"
>${run.workflowName}</a> v${run.workflowVersion}</td></tr>
<tr><th>Status</th><td><span class="status" id="status">${run.status}</span> ${run.stopReason ?? ''} ${cancel}</td></tr>
<tr><th>Trigger</th><td>${run.trigger.type}</td></tr><tr><th>Started</th><td>${when(run.createdAt)}</td></tr>
<tr><th>Cost</th><td>${usd(run.costUsd)} (${run.modelCalls} model calls; ${u.inputTokens} in, ${u.outputTokens} out,
${u.cacheReadInputTokens} cache read, ${u.cacheCreationInputTokens} cache write)</td></tr>
${engineRow(run)}
${run.result ? html`<tr><th>Result</th><td><pre>${run.result.text}</pre></td></tr>` : ''}
${run.error ? html`<tr><th>Error</th><td class="bad">${run.error.name}: ${run.error.message}</td></tr>` : ''}
${run.replacedBy ? html`<tr><th>Replaced by</th><td><a id="replaced-by" href="/console/runs/${run.replacedBy}">${run.replacedBy}</a></td></tr>` : ''}
${replacesRow(run)}</table>`;
  const graph = run.kind === 'graph' ? await graphSection(deps, identity, run) : '';
  const body = html`${summary}${graph}<h2>Audit</h2>${verificationLine(audit)}<h2>Timeline</h2>${timeline(audit.entries)}${auditLinks(audit, run.runId)}
<h2>Receipts</h2>${receipts(sideEffects.items, run.runId, sideEffects.nextToken !== undefined)}
<h2>Transcript</h2>${transcript(messages, run.runId, transcriptToken !== undefined)}`;
  return page(`Run ${run.runId}`, body, { signedIn: true, ...(live ? { refreshSeconds: 3 } : {}) });
}

/** An external run's engine while it runs: its last state, and (at capacity) the next start attempt. */
function engineRow(run: Run) {
  const last = run.external?.last;
  if (!last || isTerminalRunStatus(run.status)) return '';
  const next = run.external?.capacity?.nextAttemptAt;
  return html`<tr><th>Engine</th><td id="engine">${last.state}${last.detail ? ` (${last.detail})` : ''}${
    next ? html`; next start attempt ${when(next)}` : ''
  }</td></tr>`;
}

/** A run its trigger started in place of one that ended without starting links back to that run. */
function replacesRow(run: Run): Fragment | '' {
  const replaces = 'replacesRunId' in run.trigger ? run.trigger.replacesRunId : undefined;
  return replaces
    ? html`<tr><th>Replaces</th><td><a id="replaces" href="/console/runs/${replaces}">${replaces}</a></td></tr>`
    : '';
}
