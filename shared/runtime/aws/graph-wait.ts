/** The composition of graph-wait: starts a step's child agent run, or pauses on a task token. */
import { unconfiguredHumanTasks } from '../../graph-run/human-task-port.ts';
import type { GraphWaitDeps } from '../../graph-run/wait.ts';
import { randomIds, systemClock } from '../clock.ts';
import { awsTaskTokens } from './approvals.ts';
import { awsExecutions } from './executions.ts';
import { awsGraphDefinitions } from './graph-definitions.ts';
import { awsStore } from './store.ts';

export async function graphWaitDeps(): Promise<GraphWaitDeps> {
  const taskTokens = awsTaskTokens();
  return {
    store: awsStore(),
    definitionOf: awsGraphDefinitions(),
    clock: systemClock,
    ids: randomIds,
    executions: awsExecutions(),
    humanTasks: unconfiguredHumanTasks,
    answer: (token: string, output: object) => taskTokens.sendSuccess(token, output),
  };
}
