/**
 * The composition of graph-wait: starts a step's child agent run, pauses on a task token, or opens a human
 * task. Human tasks use the same service as the local stack (shared/human-tasks: task record, signed links
 * through the approval topic, the form pages served by approval-http), built at the first human step.
 */
import type { GraphWaitDeps } from '../../graph-run/wait.ts';
import { humanTaskPort, lazyHumanTaskPort } from '../../human-tasks/port.ts';
import { randomIds, systemClock } from '../clock.ts';
import { awsTaskTokens } from './approvals.ts';
import { awsExecutions } from './executions.ts';
import { awsGraphDefinitions } from './graph-definitions.ts';
import { requestHumanTaskDeps } from './human-tasks.ts';
import { awsStore } from './store.ts';

export async function graphWaitDeps(): Promise<GraphWaitDeps> {
  const taskTokens = awsTaskTokens();
  return {
    store: awsStore(),
    definitionOf: awsGraphDefinitions(),
    clock: systemClock,
    ids: randomIds,
    executions: awsExecutions(),
    humanTasks: lazyHumanTaskPort(async () => humanTaskPort(await requestHumanTaskDeps())),
    answer: (token: string, output: object) => taskTokens.sendSuccess(token, output),
  };
}
