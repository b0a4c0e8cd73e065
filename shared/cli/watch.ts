/** Follows a run until it ends, printing progress lines as its audit chain grows. */
import { isDeliverable } from '../core/degraded.ts';
import { followRunAudit, type RunAuditPage } from '../runs/audit-reader.ts';
import type { Run } from '../schemas/run.ts';
import type { ApiClient } from './client.ts';
import { fixedPoll, POLL_BACKOFF, pollBackoff } from './poll-backoff.ts';
import { costSoFar, describeAuditEntry } from './progress.ts';

const TERMINAL = ['done', 'failed', 'denied', 'cancelled'];
const DELIVERY_GRACE_MS = 10_000;
/** How long `wf run start --wait` follows a run before it gives up (docs/cli.md). */
export const DEFAULT_WAIT_MS = 30 * 60_000;

export type WatchOptions = {
  /** A fixed wait between polls; by default the wait backs off while the run shows nothing new (poll-backoff.ts). */
  intervalMs?: number;
  /** Waits `ms` between polls (tests record the waits). */
  sleep?: (ms: number) => Promise<void>;
  timeoutMs?: number;
  print: (line: string) => void;
  /** Called once each time the run starts waiting for approval. */
  onAwaitingApproval?: (run: Run) => void | Promise<void>;
};

export async function watchRun(
  client: Pick<ApiClient, 'get'>,
  runId: string,
  options: WatchOptions,
): Promise<Run> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
  const deadline = Date.now() + timeoutMs;
  let seen = 0;
  let lastStatus: string | undefined;
  let waiting = false;
  const backoff =
    options.intervalMs === undefined ? pollBackoff(POLL_BACKOFF.runWait) : fixedPoll(options.intervalMs);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let deliveryDeadline: number | undefined;
  // Pages already read whole are not read again: each poll continues from the last page.
  const readAudit = followRunAudit(runId, (path) => client.get<RunAuditPage>(path));
  for (;;) {
    // The run first: its audit entries are written with it, so the entries read next include all it shows.
    const { run } = await client.get<{ run: Run }>(`/v1/runs/${runId}`);
    const { entries } = await readAudit();
    for (const entry of entries.slice(seen)) {
      const line = describeAuditEntry(entry);
      if (line)
        options.print(
          entry.type === 'model_call'
            ? `${line}  [cost so far ${`$${costSoFar(entries.slice(0, entry.seq + 1)).toFixed(4)}`}]`
            : line,
        );
    }
    // A done run still delivers its result (and audits that): wait for it, briefly, so the chain is final.
    const delivers = isDeliverable(run);
    // Something new (an audit entry: each turn, gate, dispatch, approval writes one; or a status), or a
    // delivery awaited: the next poll comes soon.
    const changed = entries.length > seen || run.status !== lastStatus || (delivers && !run.delivery);
    seen = entries.length;
    lastStatus = run.status;
    if (delivers && !run.delivery) deliveryDeadline ??= Date.now() + DELIVERY_GRACE_MS;
    const delivered = !delivers || run.delivery !== undefined || Date.now() > (deliveryDeadline ?? 0);
    if (TERMINAL.includes(run.status) && delivered) return run;
    if (run.status === 'awaiting_approval' && !waiting) {
      waiting = true;
      await options.onAwaitingApproval?.(run);
    }
    if (run.status !== 'awaiting_approval') waiting = false;
    if (Date.now() > deadline)
      throw new Error(`run ${runId} is still ${run.status} after ${Math.round(timeoutMs / 1000)} s`);
    await sleep(backoff.next(changed));
  }
}
