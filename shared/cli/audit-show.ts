/**
 * `wf audit show RUN`: a run's audit chain, one line per entry, denials highlighted, and whether it verifies
 * (every page read: audit-reader.ts).
 */
import { type RunAuditPage, readRunAudit } from '../runs/audit-reader.ts';
import type { ApiClient } from './client.ts';
import type { Colours } from './colour.ts';
import type { Output } from './commands.ts';
import { describeAuditEntry } from './progress.ts';

export async function auditShow(client: ApiClient, runId: string, out: Output, c: Colours): Promise<number> {
  const body = await readRunAudit(runId, (path) => client.get<RunAuditPage>(path));
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
      : c.red(`chain BROKEN at entry ${body.verification.firstBrokenSeq}: ${body.verification.message}`),
  );
  return body.verification.ok ? 0 : 4;
}
