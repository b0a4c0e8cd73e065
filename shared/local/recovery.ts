/**
 * What the local stack does once it serves: schedules, runs that were in flight when the stack last stopped,
 * and delegated jobs a crash left half done, then the periodic jobs sweep.
 */
import { sweepJobs } from '../jobs/index.ts';
import { resumeRun } from '../runs/index.ts';
import { withFunctionName } from '../runtime/aws-call-recorder.ts';
import { randomIds } from '../runtime/clock.ts';
import { listActiveRuns } from './active-runs.ts';
import { deliverLeftovers } from './deliver-leftovers.ts';
import type { LocalMachines } from './machines.ts';
import { type LocalScheduler, startLocalScheduler } from './scheduler.ts';
import type { LocalServices } from './services-local.ts';
import type { LocalStackOptions } from './stack-options.ts';
import type { Closers } from './stack-parts.ts';

export type LocalRecovery = {
  scheduler: LocalScheduler;
  /** Deliverable runs found without a delivery record, delivered (or refused). */
  delivered: string[];
  /** Non-terminal runs resumed. */
  resumed: string[];
};

export async function recoverAndSchedule(
  options: Pick<LocalStackOptions, 'schedulerIntervalMs' | 'jobSweepIntervalMs'>,
  services: LocalServices,
  machines: LocalMachines,
  closers: Closers,
): Promise<LocalRecovery> {
  const { store, clock, logger } = services;
  const { executions, jobs } = machines;
  // Started as start-run: its timer callbacks inherit that name (EventBridge Scheduler invokes start-run).
  const scheduler = withFunctionName('start-run', () =>
    startLocalScheduler(
      { store, executions, clock, ids: randomIds },
      { intervalMs: options.schedulerIntervalMs ?? 15_000 },
    ),
  );
  closers.push(() => scheduler.stop());
  // Runs that ended deliverable while the stack died before Deliver recorded anything, through the same
  // handler; before resuming, so no resumed execution is on its way to Deliver the same run meanwhile.
  const delivered = await withFunctionName('local', () => deliverLeftovers(store, machines.deliver, logger));
  const resumed: string[] = [];
  await withFunctionName('local', async () => {
    for (const run of await listActiveRuns(store)) {
      await resumeRun({ store, executions }, run, randomIds.next('r').slice(2, 10));
      resumed.push(run.runId);
    }
  });
  // Delegated jobs: what a crash left half done, then a periodic sweep (EventBridge → jobs-sweep on AWS).
  const sweep = () =>
    withFunctionName('jobs-sweep', () => sweepJobs(jobs)).catch((error: unknown) =>
      logger.warn('jobs sweep failed', { error: String(error) }),
    );
  await sweep();
  const sweepEvery = options.jobSweepIntervalMs ?? 15_000;
  if (sweepEvery > 0) {
    const timer = setInterval(sweep, sweepEvery);
    closers.push(() => clearInterval(timer));
  }
  return { scheduler, delivered, resumed };
}
