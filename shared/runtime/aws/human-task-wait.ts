/**
 * The composition of the human-task function (`HumanTask` of the graph machine): the graph run's store and
 * definitions, and the human-task service (task record, signed links through the approval topic), the same
 * service as the local stack's. The keyring is read at the first request, never at import.
 */
import type { HumanTaskWaitDeps } from '../../graph-run/wait.ts';
import { humanTaskPort, lazyHumanTaskPort } from '../../human-tasks/port.ts';
import { systemClock } from '../clock.ts';
import { awsGraphDefinitions } from './graph-definitions.ts';
import { requestHumanTaskDeps } from './human-tasks.ts';
import { awsStore } from './store.ts';

export async function humanTaskWaitDeps(): Promise<HumanTaskWaitDeps> {
  return {
    store: awsStore(),
    definitionOf: awsGraphDefinitions(),
    clock: systemClock,
    humanTasks: lazyHumanTaskPort(async () => humanTaskPort(await requestHumanTaskDeps())),
  };
}
