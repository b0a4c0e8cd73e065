/**
 * How many history events one execution of the graph machine can hold, against Step Functions' quota of
 * 25,000 events per execution ("Maximum execution history size: 25,000 events",
 * https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html). The execution runs the
 * synthesized definition through a small walker: every Choice is decided by its own rules over the state
 * the Task results leave, and every state entered is counted in the history events its type writes
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_HistoryEvent.html):
 *
 * - a Task whose Resource is a function ARN: TaskStateEntered, LambdaFunctionScheduled, LambdaFunctionStarted,
 *   LambdaFunctionSucceeded (or …Failed, …TimedOut), TaskStateExited: 5;
 * - a `lambda:invoke.waitForTaskToken` Task: TaskStateEntered, TaskScheduled, TaskStarted, TaskSubmitted,
 *   TaskSucceeded (or TaskFailed, TaskTimedOut), TaskStateExited: 6;
 * - a retried attempt adds its own scheduled, started (submitted) and failed events: at most 4;
 * - Choice, Succeed: …Entered, …Exited: 2; a Map: MapStateEntered, MapStateStarted, MapStateSucceeded,
 *   MapStateExited, and MapIterationStarted, MapIterationSucceeded per iteration;
 * - the execution: ExecutionStarted, ExecutionSucceeded.
 *
 * The largest graph the schema allows has 100 nodes (shared/graph/definition.ts): a start, an end and 98
 * steps. The longest execution runs them one at a time (one `Advance` and one Map per step), each by the
 * costliest path of the machine. What is not bounded by the graph is named below and in
 * docs/graph-workflows.md ("How long one execution can run").
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { GRAPH_STATE_NAMES } from '../../infra/constructs/state-names.ts';
import { GraphDefinitionShapeSchema } from '../../shared/graph/definition.ts';
import { defaultRuntime, flatTemplate, logicalId } from './synth.ts';

/** Step Functions' quota of history events per execution (Standard). */
const HISTORY_QUOTA = 25_000;

type Retrier = { ErrorEquals: string[]; MaxAttempts?: number };
type Catcher = { ErrorEquals: string[]; Next: string };
type Rule = Record<string, unknown> & { Next?: string };
type State = {
  Type: string;
  Next?: string;
  End?: boolean;
  Resource?: string;
  Retry?: Retrier[];
  Catch?: Catcher[];
  Choices?: Rule[];
  Default?: string;
  ItemsPath?: string;
  ItemProcessor?: Machine;
};
type Machine = { StartAt: string; States: Record<string, State> };
type Data = Record<string, unknown>;

/** What a Task did in the scenario: the data it leaves, or the error a Catch routes. */
type TaskOutcome = { data: Data } | { caught: string };
type Scenario = { task(name: string, data: Data): TaskOutcome };

const isCallback = (state: State) => String(state.Resource).endsWith('.waitForTaskToken');

/** History events of one Task entry that succeeds (or fails into a Catch) on its first attempt. */
const taskEvents = (state: State) => (isCallback(state) ? 6 : 5);

/** History events of one failed attempt that a Retrier retries: scheduled, started, (submitted), failed. */
const retriedAttemptEvents = (state: State) => (isCallback(state) ? 4 : 3);

/** Every retried attempt one Task entry can make: each Retrier counts its own attempts (MaxAttempts, default 3). */
const maxRetries = (state: State) =>
  (state.Retry ?? []).reduce((sum, retrier) => sum + (retrier.MaxAttempts ?? 3), 0);

function pathValue(data: unknown, path: string): unknown {
  let value = data;
  for (const key of path
    .replace(/^\$\.?/, '')
    .split('.')
    .filter(Boolean)) {
    if (typeof value !== 'object' || value === null || !(key in value)) return undefined;
    value = (value as Data)[key];
  }
  return value;
}

/** A Choice rule over the data (the comparison operators this definition uses; anything else throws). */
function matches(rule: Rule, data: Data): boolean {
  if (Array.isArray(rule.And)) return (rule.And as Rule[]).every((inner) => matches(inner, data));
  if (Array.isArray(rule.Or)) return (rule.Or as Rule[]).some((inner) => matches(inner, data));
  if (rule.Not) return !matches(rule.Not as Rule, data);
  const value = pathValue(data, String(rule.Variable));
  if ('IsPresent' in rule) return (value !== undefined) === rule.IsPresent;
  if ('IsNumeric' in rule) return (typeof value === 'number') === rule.IsNumeric;
  if ('StringEquals' in rule) return value === rule.StringEquals;
  if ('NumericGreaterThanEquals' in rule)
    return typeof value === 'number' && value >= Number(rule.NumericGreaterThanEquals);
  throw new Error(`the walker has no Choice operator for ${JSON.stringify(rule)}`);
}

type Walk = { events: number; taskEntries: State[] };

/** Runs `machine` from its StartAt to an End, Succeed or Fail state; counts the history events written. */
function walk(machine: Machine, input: Data, scenario: Scenario, walked: Walk): Data {
  let name: string | undefined = machine.StartAt;
  let data = input;
  for (let transitions = 0; name !== undefined; transitions++) {
    if (transitions > 100_000) throw new Error('the walk does not end');
    const state: State | undefined = machine.States[name];
    if (!state) throw new Error(`no state ${name}`);
    switch (state.Type) {
      case 'Choice': {
        walked.events += 2;
        const rule: Rule | undefined = state.Choices?.find((candidate) => matches(candidate, data));
        const choice = name;
        name = rule?.Next ?? state.Default;
        if (name === undefined) throw new Error(`Choice ${choice} matched nothing (States.NoChoiceMatched)`);
        continue;
      }
      case 'Succeed':
        walked.events += 2;
        return data;
      case 'Fail':
        walked.events += 1;
        return data;
      case 'Map': {
        const items = pathValue(data, state.ItemsPath ?? '$') as Data[];
        walked.events += 4 + 2 * items.length;
        for (const item of items) walk(state.ItemProcessor!, item, scenario, walked);
        break;
      }
      case 'Task': {
        walked.events += taskEvents(state);
        walked.taskEntries.push(state);
        const outcome = scenario.task(name, data);
        if ('caught' in outcome) {
          const catcher: Catcher | undefined = state.Catch?.find(
            (candidate) =>
              candidate.ErrorEquals.includes(outcome.caught) || candidate.ErrorEquals.includes('States.ALL'),
          );
          if (!catcher) throw new Error(`${name}: nothing catches ${outcome.caught}`);
          name = catcher.Next;
          continue;
        }
        data = outcome.data;
        break;
      }
      default:
        throw new Error(`the walker has no state type ${state.Type}`);
    }
    if (state.End) return data;
    name = state.Next;
  }
  return data;
}

const names = GRAPH_STATE_NAMES;
type StepKind = 'service_task' | 'gated_service_task' | 'agent_task' | 'human_task' | 'external_task';

/**
 * The largest graph run step after step, each step of `kind` in a batch of its own (one `Advance`, one Map per
 * step: the most events per step), and `pauses` pause/resume rounds on the way. A gated service step takes its
 * longest path: its approval wait times out, `ExpireStepApproval` records it, the step runs again.
 */
function largestRun(kind: StepKind, steps: number, pauses = 0): Scenario {
  let started = 0;
  let pausesLeft = pauses;
  const approvals = new Map<string, number>();
  return {
    task(name, data) {
      switch (name) {
        case names.advance: {
          if (pausesLeft > 0) {
            pausesLeft--;
            return { data: { runId: 'r', next: 'paused', rev: 1 } };
          }
          if (started === steps) return { data: { runId: 'r', next: 'done' } };
          started++;
          const type = kind === 'gated_service_task' ? 'service_task' : kind;
          const step = { runId: 'r', stepId: `s${started}`, type, attempt: 1, timeoutSeconds: 60 };
          return { data: { runId: 'r', next: 'steps', steps: [step] } };
        }
        case names.serviceTask: {
          const stepId = String(data.stepId);
          const asked = approvals.get(stepId) ?? 0;
          approvals.set(stepId, asked + 1);
          const service =
            kind === 'gated_service_task' && asked === 0
              ? { next: 'approval', approvalId: 'a', timeoutSeconds: 60 }
              : { next: 'done' };
          return { data: { ...data, service } };
        }
        case names.approveServiceStep:
          return { caught: 'States.Timeout' };
        case names.deliver:
          return { data };
        default:
          return { data };
      }
    },
  };
}

let machine: Machine;

beforeAll(() => {
  const synthesized = defaultRuntime();
  const machines = flatTemplate(synthesized.template).findResources('AWS::StepFunctions::StateMachine');
  const resource = machines[logicalId(synthesized.stack.runtime.graphStateMachine.stateMachine)];
  machine = JSON.parse(resource?.Properties.DefinitionString as string) as Machine;
});

/** The execution's events (ExecutionStarted and its end included) and its Task entries. */
function execution(scenario: Scenario): Walk {
  const walked: Walk = { events: 2, taskEntries: [] };
  walk(machine, { runId: 'r' }, scenario, walked);
  return walked;
}

/** The schema's largest graph: its node limit, of which one start and one end. */
function largestGraphSteps(): number {
  const nodes = (n: number) => [
    { id: 'start', type: 'start' },
    ...Array.from({ length: n - 2 }, (_, i) => ({
      id: `s${i}`,
      type: 'service_task',
      action: 'current_time',
    })),
    { id: 'done', type: 'end' },
  ];
  const accepts = (n: number) =>
    GraphDefinitionShapeSchema.safeParse({
      kind: 'graph',
      name: 'largest',
      trigger: { type: 'on_demand' },
      budget: { maxUsdPerRun: 1 },
      gates: {},
      nodes: nodes(n),
      edges: [{ from: 'start', to: 'done' }],
    }).success;
  let n = 2;
  while (accepts(n + 1)) n++;
  return n - 2;
}

const KINDS: StepKind[] = ['service_task', 'gated_service_task', 'agent_task', 'human_task', 'external_task'];

describe('the graph machine against the 25,000-event history quota', () => {
  it('the schema allows at most 100 nodes: 98 steps besides start and end', () => {
    expect(largestGraphSteps()).toBe(98);
  });

  it("walks each kind of step through the synthesized definition's own Choice rules", () => {
    const one = (kind: StepKind) => execution(largestRun(kind, 1)).events;
    // Counted by hand from the events above: Advance 5 + RouteGraph 2 + Map (4 + 2) + StepType 2, then the
    // step's own states, then Advance 5 + RouteGraph 2 + DeliverGraph 5, plus the execution's 2.
    const around = 5 + 2 + 6 + 2 + (5 + 2 + 5) + 2;
    expect(one('agent_task')).toBe(around + 6 + 5); // AgentTask (callback) + CompleteStep
    expect(one('service_task')).toBe(around + 5 + 2 + 2); // ServiceTask + ServiceWaits + ServiceTaskEnded
    // ServiceTask, ServiceWaits, ApproveServiceStep (timed out), ExpireStepApproval, ServiceTask, ServiceWaits,
    // ServiceTaskEnded.
    expect(one('gated_service_task')).toBe(around + 5 + 2 + 6 + 5 + 5 + 2 + 2);
  });

  it('runs the largest graph, every step by its costliest path, under the quota without retries', () => {
    const steps = largestGraphSteps();
    const byKind = Object.fromEntries(KINDS.map((kind) => [kind, execution(largestRun(kind, steps)).events]));
    const worst = Math.max(...Object.values(byKind));
    console.table(byKind);
    expect(worst).toBe(byKind.gated_service_task);
    expect(worst).toBeLessThan(HISTORY_QUOTA);
  });

  it('keeps room for thousands of retried attempts; the retriers alone could use all of it', () => {
    const steps = largestGraphSteps();
    const run = execution(largestRun('gated_service_task', steps));
    const perRetry = Math.max(...run.taskEntries.map(retriedAttemptEvents));
    const room = Math.floor((HISTORY_QUOTA - run.events) / perRetry);
    // Every Task entry retried by every Retrier to its MaxAttempts (34 attempts: 6 Lambda service faults, 20
    // throttles, 6 engine errors, 2 crashes) is not bounded under the quota: that needs faults on nearly
    // every call of the execution, and ends it FAILED (the execution-ended rule then fails the run).
    const allRetries = run.taskEntries.reduce(
      (sum, state) => sum + maxRetries(state) * retriedAttemptEvents(state),
      0,
    );
    console.table({ events: run.events, taskEntries: run.taskEntries.length, room, allRetries });
    expect(room).toBeGreaterThan(5_000);
    expect(room / run.taskEntries.length).toBeGreaterThan(10);
    expect(run.events + allRetries).toBeGreaterThan(HISTORY_QUOTA);
  });

  it('a pause/resume round adds events without bound: the quota caps one execution at a few thousand', () => {
    const steps = largestGraphSteps();
    const base = execution(largestRun('gated_service_task', steps)).events;
    const paused = execution(largestRun('gated_service_task', steps, 1)).events;
    // Advance 5 + RouteGraph 2 + AwaitResume 6 (a callback).
    const perRound = paused - base;
    expect(perRound).toBe(13);
    const rounds = Math.floor((HISTORY_QUOTA - base) / perRound);
    console.table({ perRound, roundsLeftOnTheLargestGraph: rounds });
    expect(rounds).toBeGreaterThan(1_500);
  });

  it('each callback task passes which attempt of which execution it is (the fence of its token put)', () => {
    const processor = machine.States[names.runSteps]!.ItemProcessor!.States;
    const callbacks = Object.entries({ ...machine.States, ...processor }).filter(([, state]) =>
      isCallback(state),
    );
    const fenced = callbacks
      .filter(([, state]) => {
        const parameters = JSON.stringify((state as State & { Parameters?: unknown }).Parameters);
        return (
          parameters.includes('"retryCount.$":"$$.State.RetryCount"') &&
          parameters.includes('"redriveCount.$":"$$.Execution.RedriveCount"') &&
          // A later execution of the run (an operator's step retry) re-enters a step with its counts at 0.
          parameters.includes('"startTime.$":"$$.Execution.StartTime"')
        );
      })
      .map(([name]) => name);
    expect(new Set(fenced)).toEqual(
      new Set([
        names.agentTask,
        names.humanTask,
        names.externalTask,
        names.awaitResume,
        names.approveServiceStep,
      ]),
    );
    expect(new Set(callbacks.map(([name]) => name))).toEqual(new Set(fenced));
  });

  it('the AwaitResume task is the only way out of RouteGraph for `paused`, and carries the revision', () => {
    const route = machine.States[names.route]!;
    const paused = route.Choices?.find((rule) => rule.StringEquals === 'paused');
    expect(paused?.Next).toBe(names.awaitResume);
    const awaitResume = machine.States[names.awaitResume] as State & { Parameters?: Record<string, unknown> };
    expect(JSON.stringify(awaitResume.Parameters)).toContain('"rev.$":"$.rev"');
  });
});
