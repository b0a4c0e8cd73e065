/** Test support for the turn engine: a scripted model fake, a recording egress, fault injection and a driver. */
import { connectorActions, createActionCatalog, httpBuiltins } from '../../shared/actions/index.ts';
import type { EngineConfig, TurnDeps } from '../../shared/core/engine.ts';
import type { TurnInput, TurnOutcome } from '../../shared/core/outcome.ts';
import type {
  ContentBlock,
  EgressPort,
  ModelPort,
  ModelRequest,
  ModelResponse,
  ModelStopReason,
  SecretsPort,
  Usage,
} from '../../shared/core/ports.ts';
import { DEFAULT_PRICES } from '../../shared/core/pricing.ts';
import type { RunChange, RunStore, TurnReadOptions } from '../../shared/core/store-port.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { DEFAULT_MODEL_CONFIG } from '../../shared/model/resolve.ts';
import type { DynamoStore } from '../../shared/store/index.ts';
import { FixedClock, randomIds } from './store.ts';

export type ScriptStep = { content: ContentBlock[]; stopReason: ModelStopReason; usage?: Partial<Usage> };

export const text = (value: string): ContentBlock => ({ type: 'text', text: value });
export const toolUse = (id: string, name: string, input: unknown): ContentBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
});

/**
 * A deterministic model: the step it answers is the number of assistant messages in the request, like the
 * scripted Messages-API server, so a retried call gets the same answer. Records every request.
 */
export class ScriptedModel implements ModelPort {
  readonly requests: ModelRequest[] = [];
  readonly #steps: ScriptStep[];
  constructor(steps: ScriptStep[]) {
    this.#steps = steps;
  }
  async call(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(structuredClone(request));
    const index = request.messages.filter((message) => message.role === 'assistant').length;
    const step = this.#steps[index];
    if (!step) throw new Error(`scripted model has no step ${index}`);
    return {
      model: request.model,
      content: step.content,
      stopReason: step.stopReason,
      usage: {
        inputTokens: 100,
        outputTokens: 50,
        cacheCreationInputTokens: 0,
        cacheReadInputTokens: 0,
        ...step.usage,
      },
    };
  }
}

export const noEgress: EgressPort = {
  request: async () => {
    throw new Error('no egress in this test');
  },
};

export const noSecrets: SecretsPort = {
  resolve: async () => {
    throw new Error('no secrets in this test');
  },
  redact: (_owner, value) => value,
};

export class CrashError extends Error {
  constructor(point: string) {
    super(`injected crash: ${point}`);
    this.name = 'CrashError';
  }
}

/** A store that forwards every call to `inner`; wrappers extend it and override `commit`. */
export abstract class ForwardingStore implements RunStore {
  protected readonly inner: RunStore;
  constructor(inner: RunStore) {
    this.inner = inner;
  }
  getRun = (runId: string) => this.inner.getRun(runId);
  getWorkflowHead = (owner: string, id: string) => this.inner.getWorkflowHead(owner, id);
  getWorkflowVersion = (owner: string, id: string, version: number) =>
    this.inner.getWorkflowVersion(owner, id, version);
  listMessages = (runId: string) => this.inner.listMessages(runId);
  /** Forwarded (the turn's one-request read, when `inner` has it), so wrapped stores read as the real one does. */
  getRunWithMessages = (
    runId: string,
    headHint?: { owner: string; workflowId: string },
    options?: TurnReadOptions,
  ) =>
    this.inner.getRunWithMessages
      ? this.inner.getRunWithMessages(runId, headHint, options)
      : Promise.all([this.inner.getRun(runId), this.inner.listMessages(runId)]).then(([run, messages]) => ({
          run,
          messages,
        }));
  listLedger = (runId: string) => this.inner.listLedger(runId);
  getApproval = (id: string) => this.inner.getApproval(id);
  getDaySpendDetail = (owner: string, id: string, day: string) =>
    this.inner.getDaySpendDetail(owner, id, day);
  getGraphSpendDetail = (graphRunId: string) => this.inner.getGraphSpendDetail(graphRunId);
  anchorRunHead = (run: Parameters<RunStore['anchorRunHead']>[0], at: string) =>
    this.inner.anchorRunHead(run, at);
  abstract commit(change: RunChange): ReturnType<RunStore['commit']>;
}

/** A store that crashes once, before or after the first commit matching a predicate. */
export class FaultyStore extends ForwardingStore {
  private armed = true;
  private readonly when: 'before' | 'after';
  private readonly matches: (change: RunChange) => boolean;
  private readonly point: string;
  constructor(
    inner: RunStore,
    when: 'before' | 'after',
    matches: (change: RunChange) => boolean,
    point: string,
  ) {
    super(inner);
    this.when = when;
    this.matches = matches;
    this.point = point;
  }
  async commit(change: RunChange) {
    const hit = this.armed && this.matches(change);
    if (hit && this.when === 'before') {
      this.armed = false;
      throw new CrashError(this.point);
    }
    const result = await this.inner.commit(change);
    if (hit) {
      this.armed = false;
      throw new CrashError(this.point);
    }
    return result;
  }
}

export const engineConfig = (overrides: Partial<EngineConfig> = {}): EngineConfig => ({
  prices: DEFAULT_PRICES,
  roles: DEFAULT_MODEL_CONFIG.roles,
  turnsPerExecution: 500,
  ...overrides,
});

export function engineDeps(
  store: DynamoStore,
  model: ModelPort,
  overrides: Partial<TurnDeps> = {},
): TurnDeps {
  return {
    store,
    model,
    actions: createActionCatalog({
      notes: store,
      httpBuiltins: httpBuiltins(),
      connectorAction: connectorActions(),
    }),
    egress: noEgress,
    secrets: noSecrets,
    clock: new FixedClock(),
    ids: randomIds,
    config: engineConfig(),
    ...overrides,
  };
}

/** The attempt Step Functions reports on the first attempt of an entry into Turn (no retry, no redrive). */
export const firstAttempt = (execution: string) => ({
  retryCount: 0,
  redriveCount: 0,
  executionId: `arn:aws:states:local:000000000000:execution:wf:${execution}`,
});

/**
 * Drives turns the way the state machine does (continue → Turn) until the run waits or ends.
 * Returns every outcome.
 */

export async function driveRun(
  deps: TurnDeps,
  runId: string,
  from = { turn: 0, segmentStartTurn: 0 },
): Promise<TurnOutcome[]> {
  const outcomes: TurnOutcome[] = [];
  let pointer: TurnInput = { runId, ...from };
  for (let guard = 0; guard < 100; guard++) {
    // Each turn is a first attempt of a new entry into Turn, in one execution per segment (core/attempt.ts):
    // the first named after the run (as launchRun names it), each continued one after its first turn.
    const segment = pointer.segmentStartTurn;
    const attempt = firstAttempt(segment === 0 ? runId : `${runId}-from-${segment}`);
    const outcome = await runTurn(deps, { ...pointer, attempt });
    outcomes.push(outcome);
    if (outcome.next !== 'continue' && outcome.next !== 'continue_as_new') return outcomes;
    // A `continue` names what the next turn reads, and the state machine hands it over (`state.readHint`).
    pointer = {
      runId,
      turn: outcome.turn,
      segmentStartTurn: outcome.next === 'continue_as_new' ? outcome.turn : pointer.segmentStartTurn,
      ...(outcome.next === 'continue' && outcome.readHint ? { readHint: outcome.readHint } : {}),
    };
  }
  throw new Error('run did not settle in 100 turns');
}
