/**
 * The composition of graph-wait: starts a step's child run (agent or external) or pauses on a task token.
 * It opens no human task: that is the human-task function's (human-task-wait.ts), so graph-wait holds neither
 * the link-signing key nor the approval topic.
 */
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
    answer: (token: string, output: object) => taskTokens.sendSuccess(token, output),
  };
}
