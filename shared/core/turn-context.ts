/**
 * What a turn reads before it acts (DESIGN.md "One turn", steps 1-2), after the run itself (the fence):
 * the run's workflow version (immutable, cached per container by the store), the live policy (the workflow
 * head, read on every turn and never cached: a withdrawn action is refused even mid-run) and the transcript,
 * in parallel (the transcript, and in a container that has read the run before also the head, are read with
 * the run: readTurnStart; the run and transcript in one Query where the store can). A run resuming from
 * approvals also needs its ledger, read alongside.
 */
import type { LedgerRow } from '../schemas/ledger.ts';
import type { TranscriptMessage } from '../schemas/message.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import { isAgentVersion, type WorkflowHead } from '../schemas/workflow-record.ts';
import { agentDefinitionOf, childAgentDefinition } from './agent-policy.ts';
import type { TurnDeps } from './engine.ts';
import { WorkflowVersionMissingError } from './errors.ts';
import { type EffectiveGrant, effectiveGrant } from './gate.ts';
import { delegatedPolicy, type LiveDelegation, liveVersionOf, readDelegation } from './live-policy.ts';
import type { TurnInput } from './outcome.ts';
import type { RunStore } from './store-port.ts';

export type TurnContext = {
  input: TurnInput;
  definition: WorkflowDefinition;
  grant: EffectiveGrant;
  /** The live policy still lets the workflow run (enabled, not deleted; a job's grant not revoked). */
  enabled: boolean;
  /** Why not, when not enabled and the reason is not the workflow's (a revoked delegation grant). */
  refusal?: string;
  messages: TranscriptMessage[];
  /** The run's ledger when it was read with the rest (a resume from approvals); otherwise read on demand. */
  ledger?: LedgerRow[];
  /**
   * The live policy assumed instead of read (a resume from approvals, `assumeHead`): the workflow head enabled,
   * not deleted, its latest version the run's. The turn's first commit carries it as a condition (turn.ts).
   */
  assumedHead?: { owner: string; workflowId: string; latestVersion: number };
  /**
   * A delegated job's live grant lowered its snapshot's budget (live-policy.ts): a reservation made ahead (by
   * the run's creation or the previous turn) under the old ceilings is given back and made again (model-step.ts).
   */
  narrowed?: true;
};

/** The workflow head as read alongside the run (`undefined` inside: no head, which disables). */
export type PrefetchedHead = { owner: string; workflowId: string; head: WorkflowHead | undefined };

/**
 * The turn's first reads, in one round trip: the run (the fence), its transcript (needs only the run id) and,
 * when this turn knows where it is, its workflow head. The head is still read on every turn, only no longer
 * after the run. The store reads them together where it can (`getRunWithMessages` with the head as a hint: the
 * run, the messages the container does not hold and the head by key in one request,
 * shared/store/turn-read.ts), else in parallel. Either way they may straddle a commit: the caller uses the
 * transcript only when it holds the run's `messageCount` messages (turn.ts).
 *
 * Where the head is, and how many messages to expect, in order:
 * - the previous turn's outcome (`readHint`, carried by the state machine into this Turn: a `continue` of a run
 *   whose live policy is a workflow head; outcome.ts), on any container;
 * - this container's memory of the run (its owner and workflow never change: the store's `knownRunScope`),
 *   the messages it holds;
 * - the execution's input (`headHint`, given to a run's first execution: shared/runs/start-run.ts), on the
 *   run's first turn only (turn 0 of the execution that started at 0; a later turn may be a resume, which reads
 *   no head): one message.
 * Each is a hint, not the scope: a head read for it is used only if it is the run's own workflow's
 * (loadTurnContext), else the run's own is read after the run; the run item says how many messages there are.
 */
export async function readTurnStart(
  deps: TurnDeps,
  input: Pick<TurnInput, 'runId' | 'turn' | 'segmentStartTurn' | 'headHint' | 'readHint'>,
): Promise<{ run: Run | undefined; transcript: TranscriptMessage[]; head?: PrefetchedHead }> {
  const { runId, readHint } = input;
  const scope = deps.store.knownRunScope?.(runId);
  // A parked run's next turn is a resume: it checks the head by condition (turn.ts), so it is not read ahead.
  const headScope = scope && !scope.delegated && !scope.parked ? scope : undefined;
  const firstTurn = !scope && input.turn === 0 && input.segmentStartTurn === 0 ? input.headHint : undefined;
  const known = readHint ?? headScope ?? firstTurn;
  const hint = known && { owner: known.owner, workflowId: known.workflowId };
  const messageCount = readHint ? readHint.messageCount : firstTurn ? 1 : undefined;
  const { run, transcript, head } = await readRunAndTranscript(deps.store, runId, hint, messageCount);
  return { run, transcript, ...(hint ? { head: { ...hint, head } } : {}) };
}

/** The run, its transcript and the hinted head: together when the store can, else in parallel. */
async function readRunAndTranscript(
  store: RunStore,
  runId: string,
  hint: { owner: string; workflowId: string } | undefined,
  messageCount: number | undefined,
): Promise<{ run: Run | undefined; transcript: TranscriptMessage[]; head: WorkflowHead | undefined }> {
  const readHead = () => (hint ? store.getWorkflowHead(hint.owner, hint.workflowId) : undefined);
  if (store.getRunWithMessages) {
    const read = await store.getRunWithMessages(
      runId,
      hint,
      messageCount !== undefined ? { messageCount } : undefined,
    );
    // A store that did not read the hinted head: read here, after the run.
    const head = read.head ? read.head.value : await readHead();
    return { run: read.run, transcript: read.messages, head };
  }
  const [run, transcript, head] = await Promise.all([
    store.getRun(runId),
    store.listMessages(runId),
    readHead(),
  ]);
  return { run, transcript, head };
}

/** Reads what the turn needs for `run` (already read and fenced by the caller). */
export async function loadTurnContext(
  deps: TurnDeps,
  run: Run,
  input: TurnInput,
  /** The run's transcript when the caller already read it for this revision. */
  transcript?: TranscriptMessage[],
  /** Assume the live policy instead of reading it; the caller makes its first commit conditional on it. */
  assumeHead = false,
  /** The workflow head read alongside the run (readTurnStart); used only if it is this run's workflow's. */
  prefetched?: PrefetchedHead,
): Promise<TurnContext> {
  const resuming = run.status === 'awaiting_approval';
  // Waiting on calls none of which has a ledger row: the ledger is known empty for them, and not read.
  const unrecorded = resuming && run.awaitingUnrecorded === true;
  const delegated = run.trigger.type === 'job';
  const prefetchedOurs = prefetched?.owner === run.owner && prefetched.workflowId === run.workflowId;
  // A head already read alongside the run costs nothing more: use it rather than assume it.
  const assumed = assumeHead && !delegated && !prefetchedOurs;
  const [stored, policy, messages, ledger] = await Promise.all([
    deps.store.getWorkflowVersion(run.owner, run.workflowId, run.workflowVersion),
    // A delegated job's live policy is its client's grant (live-policy.ts), not a workflow head.
    delegated ? readDelegation(deps, run) : assumed ? assumedPolicy(run) : livePolicy(deps, run, prefetched),
    transcript ?? deps.store.listMessages(run.runId),
    resuming && !unrecorded ? deps.store.listLedger(run.runId) : unrecorded ? [] : undefined,
  ]);
  if (!stored) throw new WorkflowVersionMissingError(run.workflowId, run.workflowVersion);
  // A saved agent workflow's version, or a graph step's child run's derived definition (agent-policy.ts).
  const definition = agentDefinitionOf(stored, run);
  if (delegated) {
    // The live grant can lower the snapshot's budget (live-policy.ts): the turn runs that definition.
    const job = delegatedPolicy(definition, policy as LiveDelegation | undefined);
    return { input, ...job, messages, ...(ledger ? { ledger } : {}) };
  }
  const head = policy as LivePolicy;
  const live = head.enabled ? await liveDefinition(deps, run, definition, head.latestVersion) : undefined;
  return {
    input,
    definition,
    grant: effectiveGrant(definition, live, head.enabled),
    enabled: head.enabled,
    messages,
    ...(ledger ? { ledger } : {}),
    ...(assumed
      ? { assumedHead: { owner: run.owner, workflowId: run.workflowId, latestVersion: run.workflowVersion } }
      : {}),
  };
}

type LivePolicy = { enabled: false } | { enabled: true; latestVersion: number };

/** The live policy: one read of the workflow head, on every turn (fail closed: a missing head disables). */
async function livePolicy(deps: TurnDeps, run: Run, prefetched?: PrefetchedHead): Promise<LivePolicy> {
  const ours = prefetched?.owner === run.owner && prefetched.workflowId === run.workflowId;
  const head = ours ? prefetched.head : await deps.store.getWorkflowHead(run.owner, run.workflowId);
  const latestVersion = liveVersionOf(head);
  return latestVersion === undefined ? { enabled: false } : { enabled: true, latestVersion };
}

/** The policy a resume assumes (see `TurnContext.assumedHead`), checked by its first commit, not read. */
const assumedPolicy = (run: Run): LivePolicy => ({ enabled: true, latestVersion: run.workflowVersion });

/** The latest version's definition: the run's own when it is the latest, else read (immutable, cached). */
async function liveDefinition(
  deps: TurnDeps,
  run: Run,
  definition: WorkflowDefinition,
  latestVersion: number,
): Promise<WorkflowDefinition | undefined> {
  if (latestVersion === run.workflowVersion) return definition;
  const live = await deps.store.getWorkflowVersion(run.owner, run.workflowId, latestVersion);
  if (!live) return undefined;
  // A child run: the same node of the latest graph version (gone → every action withdrawn).
  if (run.parent) return childAgentDefinition(live, run.parent.stepId);
  // A later version of another kind withdraws every action: the agent loop it replaced no longer exists.
  return isAgentVersion(live) ? live.definition : undefined;
}
