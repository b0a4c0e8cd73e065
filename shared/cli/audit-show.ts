/** `wf audit show RUN`: a run's audit chain, one line per entry, denials highlighted, and whether it verifies. */
import type { AuditEntry } from '../audit/index.ts';
import type { ApiClient } from './client.ts';
import type { Colours } from './colour.ts';
import type { Output } from './commands.ts';
import { describeAuditEntry } from './progress.ts';

export async function auditShow(client: ApiClient, runId: string, out: Output, c: Colours): Promise<number> {
  const body = await client.get<{
    entries: AuditEntry[];
    verification: { ok: boolean; firstBrokenSeq?: number };
  }>(`/v1/runs/${runId}/audit`);
  out.data(body);
  for (const entry of body.entries) {
    const text = describeAuditEntry(entry) ?? entry.type;
    const refused = entry.type === 'denial' || entry.type === 'approval_expired';
    out.line(
      `#${String(entry.seq).padStart(3)} ${c.dim(entry.at)}  ${refused ? c.red(text.trim()) : text.trim()}  ${c.dim(`(${entry.actor})`)}`,
    );
  }
  out.line(
    body.verification.ok
      ? c.green(`chain verified: ${body.entries.length} entries`)
      : c.red(`chain BROKEN at entry ${body.verification.firstBrokenSeq}`),
  );
  return body.verification.ok ? 0 : 4;
}
