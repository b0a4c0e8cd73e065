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
type AuditAnswer = { entries: AuditEntry[]; verification: Verification; anchored: boolean };

const verificationLine = (audit: AuditAnswer) =>
  audit.verification.ok
    ? html`<p id="verification" class="ok">Audit chain verified: ${audit.verification.count} entries, hashes
linked${audit.anchored ? ' and anchored in the owner chain' : ''}.</p>`
    : html`<p id="verification" class="bad">Audit chain BROKEN at entry ${audit.verification.firstBrokenSeq ?? '?'}:
${audit.verification.message ?? 'unknown reason'}</p>`;

/**
 * One run's page; `transcriptToken` (the `transcript` query parameter) shows a later page of its transcript,
 * which the API pages so each answer fits a Lambda response (shared/runs/transcript-page.ts).
 */
export async function runPage(
  deps: ConsoleDeps,
  identity: Identity,
  runId: string,
  transcriptToken?: string,
): Promise<Fragment> {
  const path = `/v1/runs/${encodeURIComponent(runId)}`;
  const { run } = await apiGet<{ run: Run }>(deps.api, identity, path);
  const transcriptQuery = transcriptToken ? `?nextToken=${encodeURIComponent(transcriptToken)}` : '';
  const [audit, messages, sideEffects] = await Promise.all([
    apiGet<AuditAnswer>(deps.api, identity, `${path}/audit`),
    apiGet<TranscriptPageBody>(deps.api, identity, `${path}/transcript${transcriptQuery}`),
    apiGet<{ items: Receipt[] }>(deps.api, identity, `${path}/receipts?limit=100`),
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
${run.result ? html`<tr><th>Result</th><td><pre>${run.result.text}</pre></td></tr>` : ''}
${run.error ? html`<tr><th>Error</th><td class="bad">${run.error.name}: ${run.error.message}</td></tr>` : ''}</table>`;
  const graph = run.kind === 'graph' ? await graphSection(deps, identity, run) : '';
  const body = html`${summary}${graph}<h2>Audit</h2>${verificationLine(audit)}<h2>Timeline</h2>${timeline(audit.entries)}
<h2>Receipts</h2>${receipts(sideEffects.items)}
<h2>Transcript</h2>${transcript(messages, run.runId, transcriptToken !== undefined)}`;
  return page(`Run ${run.runId}`, body, { signedIn: true, ...(live ? { refreshSeconds: 3 } : {}) });
}
