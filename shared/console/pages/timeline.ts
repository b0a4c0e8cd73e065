/**
 * A run's timeline, drawn from its audit chain: one row per entry, with each model call's tokens, cache reads
 * and cost, each gate decision, approval, dispatch and result. Refusals (denials, denied decisions, expired
 * or undeliverable approvals, blocked egress, exhausted budget) are highlighted.
 */
import { html } from 'hono/html';
import type { AuditEntry } from '../../audit/index.ts';
import { usd, when } from '../layout.ts';

type Usage = {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadInputTokens?: number;
  cacheCreationInputTokens?: number;
};

const ALWAYS_REFUSALS = new Set([
  'denial',
  'approval_expired',
  'approval_undeliverable',
  'approval_rejected',
  'egress_blocked',
  'budget_exceeded',
]);

/** Whether an entry records something refused (a denied call, an expired approval, …). */
export function isRefusal(entry: Pick<AuditEntry, 'type' | 'data'>): boolean {
  return (
    ALWAYS_REFUSALS.has(entry.type) || entry.data.decision === 'deny' || entry.data.decision === 'denied'
  );
}

const text = (value: unknown) =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : '';

/** The line a person reads for one entry. */
export function describe(entry: Pick<AuditEntry, 'type' | 'data'>): string {
  const d = entry.data;
  switch (entry.type) {
    case 'model_call': {
      const u = (d.usage ?? {}) as Usage;
      return `turn ${text(d.turn)}: ${text(d.model)} → ${text(d.stopReason)}; ${u.inputTokens ?? 0} in, ${
        u.outputTokens ?? 0
      } out, ${u.cacheReadInputTokens ?? 0} cache read, ${u.cacheCreationInputTokens ?? 0} cache write; ${usd(
        typeof d.costUsd === 'number' ? d.costUsd : undefined,
      )}`;
    }
    case 'gate_decision':
      return `gate: ${text(d.tool)} → ${text(d.decision)}${d.rule ? ` (${text(d.rule)})` : ''}`;
    case 'approval_requested':
      return `approval requested for ${text(d.tool)} from ${Array.isArray(d.approvers) ? d.approvers.join(', ') : '?'}`;
    case 'approval_decided':
      return `approval ${text(d.decision)}: ${text(d.tool)}`;
    case 'dispatch':
      return `dispatched ${text(d.tool)}`;
    case 'settle':
      return `result of ${text(d.tool) || text(d.toolUseId)}: ${text(d.status) || text(d.outcome)}${
        d.outcomeUnknown ? ' (outcome unknown)' : ''
      }`;
    case 'status_changed':
      return `status ${text(d.from)} → ${text(d.to)}${d.cause ? ` (${text(d.cause)})` : ''}`;
    default: {
      const scalars = Object.entries(d).filter(([, value]) =>
        ['string', 'number', 'boolean'].includes(typeof value),
      );
      return scalars
        .filter(([key]) => !/hash$/i.test(key))
        .map(([key, value]) => `${key}: ${String(value)}`)
        .join(', ');
    }
  }
}

export function timeline(entries: readonly AuditEntry[]) {
  const rows = entries.map(
    (
      entry,
    ) => html`<tr class="${isRefusal(entry) ? 'denied' : ''}" data-type="${entry.type}"><td>${entry.seq}</td>
<td>${when(entry.at)}</td><td class="what">${entry.type}</td><td>${describe(entry)}</td><td>${entry.actor}</td></tr>`,
  );
  return html`<table id="timeline"><tr><th>#</th><th>At</th><th>Entry</th><th>What happened</th><th>By</th></tr>${rows}</table>`;
}
