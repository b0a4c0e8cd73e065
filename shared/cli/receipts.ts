/** `wf run receipts RUN`: the run's side effects from its ledger, every page, one line each. */
import type { Receipt } from '../runs/receipts.ts';
import type { ApiClient } from './client.ts';
import type { Output } from './commands.ts';

const DUPLICATE: Record<Receipt['onDuplicate'], string> = {
  reuses_outcome: 'reuses the recorded outcome',
  resent_with_same_key: 're-sent with the same Idempotency-Key',
  refused_outcome_unknown: 'refused (outcome unknown)',
};

/** One receipt as a line: turn, action, status, key, hashes (short), and what a duplicate does. */
export function receiptLine(receipt: Receipt): string {
  const outcome = receipt.outcomeDigest ? receipt.outcomeDigest.slice(0, 12) : '-';
  return [
    `turn ${receipt.turn}`,
    receipt.action,
    receipt.status,
    `key ${receipt.idempotencyKey}`,
    `args ${receipt.argsHash.slice(0, 12)}`,
    `outcome ${outcome}`,
    `${receipt.createdAt} → ${receipt.settledAt ?? '…'}`,
    `duplicate: ${DUPLICATE[receipt.onDuplicate]}`,
  ].join('  ');
}

export async function listReceipts(client: ApiClient, runId: string, out: Output): Promise<number> {
  const items: Receipt[] = [];
  let nextToken: string | undefined;
  do {
    const query = nextToken ? `?nextToken=${encodeURIComponent(nextToken)}` : '';
    const page = await client.get<{ items: Receipt[]; nextToken?: string }>(
      `/v1/runs/${encodeURIComponent(runId)}/receipts${query}`,
    );
    items.push(...page.items);
    nextToken = page.nextToken;
  } while (nextToken);
  out.data({ runId, items });
  if (items.length === 0) out.line('no side effects recorded');
  for (const receipt of items) out.line(receiptLine(receipt));
  return 0;
}
