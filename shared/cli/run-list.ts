/**
 * `wf run list [--workflow W] [--status S] [--watch]` and `wf run cancel RUN`.
 * `--watch` polls: on a TTY it redraws the list in place when it changes; otherwise it prints a line per new
 * run or status change. Ctrl-C stops it (exit 0).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RUN_STATUSES, type Run } from '../schemas/run.ts';
import type { ApiClient } from './client.ts';
import { type Colours, statusColour } from './colour.ts';
import { findWorkflow, type Output, UsageError } from './commands.ts';
import { firstFilledPage, type ListPage, noneLine } from './follow-pages.ts';
import { fixedPoll, POLL_BACKOFF, pollBackoff } from './poll-backoff.ts';

export type RunListArgs = {
  workflow?: string;
  status?: string;
  watch?: boolean;
  /** Redraw in place (a TTY) rather than print changes. */
  redraw?: boolean;
  /** A fixed wait between polls; by default it backs off while the list does not change (poll-backoff.ts). */
  intervalMs?: number;
  /** Stops `--watch` (Ctrl-C in the bin; a test's signal). */
  signal?: AbortSignal;
};

const line = (c: Colours, run: Run) =>
  `${run.runId}  ${run.workflowName.padEnd(24)} v${run.workflowVersion}  ${statusColour(c, run.status)}${run.stopReason ? ` (${run.stopReason})` : ''}  ${run.trigger.type}  ${run.createdAt}  $${run.costUsd.toFixed(4)}`;

async function query(client: ApiClient, args: RunListArgs): Promise<string> {
  if (args.status !== undefined && !(RUN_STATUSES as readonly string[]).includes(args.status))
    throw new UsageError(`--status must be one of ${RUN_STATUSES.join(', ')}`);
  const params = new URLSearchParams({ limit: '50' });
  if (args.workflow) params.set('workflowId', (await findWorkflow(client, args.workflow)).workflowId);
  if (args.status) params.set('status', args.status);
  return `/v1/runs?${params}`;
}

/**
 * What moves a terminal's cursor back to the first line of the previous drawing (`lines` lines up, to the
 * line's start) and clears from there down: the next drawing then replaces the previous one in place.
 * ECMA-48 CPL (`ESC [ n F`) and ED (`ESC [ J`).
 */
export const redrawFrom = (lines: number) => (lines > 0 ? `\u001b[${lines}F\u001b[J` : '');

const drawing = (c: Colours, page: ListPage<Run>) =>
  page.items.length === 0 ? noneLine('no runs', page) : page.items.map((run) => line(c, run)).join('\n');

export async function runList(
  client: ApiClient,
  args: RunListArgs,
  out: Output,
  c: Colours,
): Promise<number> {
  const path = await query(client, args);
  const page = await firstFilledPage<Run>(client, path);
  out.data(page);
  let drawn = drawing(c, page);
  out.line(drawn);
  if (!args.watch) return 0;
  const known = new Map(page.items.map((run) => [run.runId, run.status]));
  const backoff = args.intervalMs === undefined ? pollBackoff(POLL_BACKOFF.list) : fixedPoll(args.intervalMs);
  let changed = true;
  while (!args.signal?.aborted) {
    // Ctrl-C (the signal) ends the wait at once rather than after the interval.
    await sleep(backoff.next(changed), undefined, args.signal ? { signal: args.signal } : {}).catch(
      () => undefined,
    );
    if (args.signal?.aborted) break;
    const next = await firstFilledPage<Run>(client, path);
    if (args.redraw && !out.json) {
      // A terminal: replace the list in place, and only when it changed (no flicker between changes).
      const now = drawing(c, next);
      changed = now !== drawn;
      if (changed) out.line(`${redrawFrom(drawn.split('\n').length)}${now}`);
      drawn = now;
      continue;
    }
    changed = false;
    for (const run of [...next.items].reverse()) {
      if (known.get(run.runId) === run.status) continue;
      changed = true;
      known.set(run.runId, run.status);
      out.data({ run });
      out.line(line(c, run));
    }
  }
  return 0;
}

export async function runCancel(client: ApiClient, runId: string, out: Output, c: Colours): Promise<number> {
  const { run } = await client.post<{ run: Run }>(`/v1/runs/${runId}/cancel`).then((r) => r.body);
  out.data({ run });
  out.line(
    `${run.runId}  ${statusColour(c, run.status)}${run.status === 'cancelled' ? '' : ' (already ended: not cancelled)'}`,
  );
  return 0;
}
