/**
 * The handlers every local state machine ends a run with (Deliver, MarkFailed), as the same Lambda handlers:
 * a child run answers its parent graph step, and a delegated job's run that ends gives its slot back and
 * promotes the next queued job (docs/jobs.md).
 */
import { createDeliverHandler } from '../../functions/deliver.ts';
import { createMarkFailedHandler } from '../../functions/mark-failed.ts';
import type { TaskTokensPort } from '../approvals-http/index.ts';
import type { DeliverDeps } from '../core/deliver.ts';
import { cancelChildrenOfFailedGraph } from '../graph-run/end-children.ts';
import { answerParentStep } from '../graph-run/parent-answer.ts';
import { humanTaskExpiry } from '../human-tasks/expiry.ts';
import { type JobsDeps, settleJobOfRun } from '../jobs/index.ts';
import type { ExecutionsPort } from '../runs/ports.ts';
import { withFunctionName } from '../runtime/aws-call-recorder.ts';
import { destinations } from '../runtime/destinations.ts';
import type { LocalServices } from './services-local.ts';
import type { LocalStackOptions } from './stack-options.ts';
import { asFunction } from './stack-parts.ts';

export type LocalRunEnds = ReturnType<typeof localRunEnds>;

export function localRunEnds(
  services: LocalServices,
  options: Pick<LocalStackOptions, 'wrapDeliverDeps'>,
  links: {
    taskTokens: TaskTokensPort;
    jobs: () => JobsDeps | undefined;
    /** Built after the machines: read when a failed graph's agent children are stopped. */
    executions?: () => ExecutionsPort | undefined;
  },
) {
  const { store, clock, owners, catalog, egress, secrets, logger } = services;
  const answerParent = (run: Parameters<typeof answerParentStep>[1]) =>
    answerParentStep({ store, taskTokens: links.taskTokens }, run);
  const endGraphChildren = (runId: string) =>
    cancelChildrenOfFailedGraph(
      { store, clock, humanTasks: humanTaskExpiry({ store, clock }), executions: links.executions?.() },
      runId,
    );
  const endDeps = () => ({ store, clock, owners, answerParent, endGraphChildren });
  const deliverDeps: DeliverDeps = {
    store,
    clock,
    destinations: destinations({ catalog, egress, secrets, clock }),
  };
  const settlingJobs =
    <E>(handler: (event: E) => Promise<unknown>) =>
    async (event: E) => {
      const result = await handler(event);
      const runId = (event as { runId?: unknown } | undefined)?.runId;
      const jobs = links.jobs();
      // As the jobs-sweep function would (on AWS it runs every minute, and the API settles on a poll).
      if (jobs && typeof runId === 'string')
        await withFunctionName('jobs-sweep', () => settleJobOfRun(jobs, runId)).catch((error: unknown) =>
          logger.warn('job not settled; the sweep will', { runId, error: String(error) }),
        );
      return result;
    };
  const deliver = asFunction(
    'deliver',
    settlingJobs(
      createDeliverHandler(async () => ({
        ...(options.wrapDeliverDeps ? options.wrapDeliverDeps(deliverDeps) : deliverDeps),
        owners,
        answerParent,
      })),
    ),
  );
  const markFailed = asFunction('mark-failed', settlingJobs(createMarkFailedHandler(endDeps)));
  return { answerParent, endDeps, deliver, markFailed };
}
