/** Human-readable progress from a run's audit entries: turns, model calls, gate decisions, tool calls, cost. */
import type { AuditEntry } from '../audit/index.ts';

const usd = (value: unknown) => (typeof value === 'number' ? `$${value.toFixed(4)}` : '');

type CacheUsage = { cacheReadInputTokens?: number; cacheCreationInputTokens?: number } | undefined;

/** The prompt-cache part of a usage: tokens read from the cache and written to it (priced apart). */
export const cacheText = (usage: CacheUsage): string =>
  `cache ${usage?.cacheReadInputTokens ?? 0} read / ${usage?.cacheCreationInputTokens ?? 0} written`;

/** One line per interesting audit entry, or undefined for bookkeeping entries. */
export function describeAuditEntry(entry: AuditEntry): string | undefined {
  const d = entry.data as Record<string, unknown>;
  switch (entry.type) {
    case 'run_created':
      return `run created (workflow version ${d.workflowVersion}, ${(d.trigger as { type?: string })?.type ?? '?'} trigger)`;
    case 'model_call': {
      const usage = d.usage as ({ inputTokens?: number; outputTokens?: number } & CacheUsage) | undefined;
      return `turn ${Number(d.turn) + 1}: model ${d.model} → ${d.stopReason} (${usage?.inputTokens ?? 0} in / ${usage?.outputTokens ?? 0} out, ${cacheText(usage)}, ${usd(d.costUsd)})`;
    }
    case 'gate_decision':
      return `  gate: ${d.tool} → ${d.decision}`;
    case 'dispatch':
      return `  dispatch: ${d.tool}${d.via === 'approved' ? ' (approved)' : ''}`;
    case 'settle':
      return `  result: ${d.tool} ${d.status}${d.outcomeUnknown ? ' (outcome unknown, not repeated)' : ''}`;
    case 'denial':
      return `  denied: ${d.tool}: ${d.reason}`;
    case 'approval_requested':
      return `  approval requested: ${d.tool} (approvers: ${(d.approvers as string[] | undefined)?.join(', ')})`;
    case 'approval_notified':
      return `  approval link sent to ${d.approver} (${d.channel})`;
    case 'approval_undeliverable':
      return `  approval undeliverable: no approver could be reached (${d.tool} denied)`;
    case 'approval_decided':
      return `  approval ${d.decision} by ${entry.actor.replace(/^approver:/, '')}`;
    case 'approval_expired':
      return `  approval expired: no human decided (denied)`;
    case 'budget_settled':
      // Only a reservation counted without an answer is news: a crashed call may have been paid.
      return d.unsettled ? `budget: an unsettled call counted as spent (${usd(d.actualUsd)})` : undefined;
    case 'budget_exceeded':
      return `budget exceeded (${d.scope}): ceiling ${usd(d.ceilingUsd)}`;
    case 'status_changed':
      return `status: ${d.from} → ${d.to}${d.stopReason ? ` (${d.stopReason})` : ''}${d.degraded ? ` — degraded: ${d.refused} call(s) refused` : ''}`;
    case 'delivered':
      return `delivered to ${d.destination}`;
    case 'error':
      return `error: ${d.name}: ${d.message}`;
    default:
      return undefined;
  }
}

/** The running cost after an entry: model calls plus reservations counted as spent without an answer. */
export function costSoFar(entries: AuditEntry[]): number {
  return entries.reduce((sum, entry) => sum + costOfEntry(entry), 0);
}

function costOfEntry(entry: AuditEntry): number {
  if (entry.type === 'model_call') return Number(entry.data.costUsd ?? 0);
  if (entry.type === 'budget_settled' && entry.data.unsettled) return Number(entry.data.actualUsd ?? 0);
  return 0;
}
