/** The calls a run refused (denied by a gate or an approver, approval expired, …), from its audit chain. */
import { type RunAuditPage, readRunAudit } from '../runs/audit-reader.ts';
import type { ApiClient } from './client.ts';
import type { Colours } from './colour.ts';

export type RefusedCall = { seq: number; tool: string; cause: string; reason: string };

export async function refusedCalls(client: ApiClient, runId: string): Promise<RefusedCall[]> {
  const { entries } = await readRunAudit(runId, (path) => client.get<RunAuditPage>(path));
  return entries
    .filter((entry) => entry.type === 'denial')
    .map((entry) => ({
      seq: entry.seq,
      tool: String(entry.data.tool),
      cause: String(entry.data.cause ?? 'denied'),
      reason: String(entry.data.reason ?? ''),
    }));
}

/** Lines calling the refused calls out: expired approvals apart from denials. */
export function refusedLines(calls: RefusedCall[], c: Colours): string[] {
  if (calls.length === 0) return [];
  return [
    `  refused calls: ${calls.length}`,
    ...calls.map((call) => {
      const label = call.cause === 'expired' ? c.yellow('EXPIRED') : c.red('DENIED');
      return `    ${label} ${call.tool} (${call.cause}, audit #${call.seq}): ${call.reason}`;
    }),
  ];
}
