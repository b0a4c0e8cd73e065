/** A run's execution receipts (GET /v1/runs/{id}/receipts): one per side effect it asked for. */
import { html } from 'hono/html';
import type { Receipt } from '../../runs/receipts.ts';
import { when } from '../layout.ts';

const BAD = new Set(['failed', 'outcome_unknown', 'refused']);

/**
 * The first page of them (`more`: the API has further pages). The page shows one answer's worth and says when
 * there are more, rather than read every page of a large run on each reload; `wf run receipts` reads them all.
 */
export function receipts(items: readonly Receipt[], runId: string, more: boolean) {
  if (items.length === 0) return html`<p class="muted">No side effects.</p>`;
  const rows = items.map(
    (receipt) => html`<tr class="${BAD.has(receipt.status) ? 'denied' : ''}"><td>${receipt.turn}</td>
<td><code>${receipt.action}</code></td><td class="what">${receipt.status}</td><td>${receipt.attempts}</td>
<td>${receipt.idempotent ? 'yes' : 'no'}</td><td><code>${receipt.idempotencyKey}</code></td>
<td>${receipt.onDuplicate.replaceAll('_', ' ')}</td><td>${when(receipt.settledAt)}</td></tr>`,
  );
  const rest = more
    ? html`<p id="receipts-more" class="muted">The first ${items.length} side effects; <code>wf run receipts ${runId}</code> lists them all.</p>`
    : '';
  return html`<table id="receipts"><tr><th>Turn</th><th>Action</th><th>Status</th><th>Attempts</th>
<th>Idempotent</th><th>Idempotency key</th><th>A duplicate</th><th>Settled</th></tr>${rows}</table>${rest}`;
}
