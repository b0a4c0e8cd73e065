/**
 * Counting an execution's progress from the engine's event log: state transitions (what AWS bills: each state
 * entered, each retry) and an approximation of the execution history length (AWS caps it at 25,000 events,
 * which is why runs continue as new).
 */
import type { TaskPlan } from './definition.ts';
import type { LocalSfnEvent } from './types.ts';

export type EngineEvent = {
  type: string;
  timestamp: number;
  state?: { name: string; type: string };
  /** The Map iteration a state event belongs to (absent outside a Map). */
  index?: number;
  Error?: string;
  Cause?: unknown;
};

/** State transitions this event adds: a state entered or a retry. */
export function transitionsOf(event: EngineEvent): number {
  return event.type === 'StateEntered' || event.type === 'StateRetried' ? 1 : 0;
}

/**
 * History events this event stands for on AWS, approximately: a Lambda Task is Entered, Scheduled, Started,
 * Succeeded/Failed, Exited; a callback Task adds Submitted; a retry adds Scheduled, Started, Failed/Succeeded.
 */
export function historyEventsOf(event: EngineEvent, plans: ReadonlyMap<string, TaskPlan>): number {
  const plan = event.state?.type === 'Task' ? plans.get(event.state.name) : undefined;
  switch (event.type) {
    case 'ExecutionStarted':
    case 'ExecutionSucceeded':
    case 'ExecutionFailed':
    case 'ExecutionAborted':
    case 'ExecutionTimeout':
    case 'StateExited':
      return 1;
    case 'StateEntered':
      if (!plan) return 1;
      return plan.kind === 'callback' ? 5 : 4;
    case 'StateRetried':
      return plan ? 3 : 0;
    default:
      return 0;
  }
}

/** The engine event as reported through `onEvent`. */
export function toLocalEvent(
  executionArn: string,
  event: EngineEvent,
  stateTransitions: number,
): LocalSfnEvent {
  return {
    executionArn,
    type: event.type,
    timestamp: event.timestamp,
    ...(event.state ? { stateName: event.state.name, stateType: event.state.type } : {}),
    ...(event.Error === undefined ? {} : { error: event.Error }),
    ...(event.Cause === undefined
      ? {}
      : { cause: typeof event.Cause === 'string' ? event.Cause : String(event.Cause) }),
    stateTransitions,
  };
}
