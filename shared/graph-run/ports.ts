/** What the graph executor needs from the store, and the step references the state machine carries. */
import type { RunStore } from '../core/store-port.ts';
import type { GraphDefinition } from '../graph/definition.ts';
import type { GraphStep } from '../schemas/graph-step.ts';
import type { LedgerRow } from '../schemas/ledger.ts';
import type { Run } from '../schemas/run.ts';

export type GraphRunItems = { run: Run; steps: GraphStep[]; ledger: LedgerRow[] };

export interface GraphRunStore
  extends Pick<
    RunStore,
    'commit' | 'getWorkflowVersion' | 'getRun' | 'anchorRunHead' | 'getWorkflowHead' | 'getApproval'
  > {
  /** The task token of the execution waiting for this run to be resumed, unless its wait was answered. */
  getResumeToken(runId: string): Promise<string | undefined>;
  /** Stores the wait's token unless a later attempt's is stored (`fence`: wait-fence.ts; shared/store/steps.ts). */
  putResumeToken(runId: string, token: string, fence?: string): Promise<'stored' | 'current' | 'superseded'>;
  /** Marks `token`'s wait answered (only while it is still the stored token). */
  settleResumeToken(runId: string, token: string): Promise<void>;
  /**
   * The run item and its steps (and ledger rows) in one strongly consistent read. With `owner`, undefined for
   * another owner's run after its first page, as for a missing one (the same number of requests).
   */
  loadGraphRun(
    runId: string,
    options?: { ledger?: boolean; owner?: string },
  ): Promise<GraphRunItems | undefined>;
}

/** One step to run, as the state machine carries it (ids and counters only: 256 KB payload limit). */
export type StepRef = {
  runId: string;
  stepId: string;
  type: 'service_task' | 'agent_task' | 'human_task' | 'external_task';
  attempt: number;
  /** human_task, external_task: the wait's `TimeoutSeconds` (read by `TimeoutSecondsPath`). */
  timeoutSeconds?: number | undefined;
};

/** Where the graph machine goes after `Advance` (or after a service step, which decides the same way). */
export type GraphNext =
  | { next: 'service'; step: StepRef }
  | { next: 'steps'; steps: StepRef[] }
  | { next: 'done' }
  /**
   * Paused by an operator: the execution waits (AwaitResume) until the run is resumed. `rev`: the run's
   * revision it was decided at, which tells this entry into AwaitResume from the next (wait-fence.ts).
   */
  | { next: 'paused'; rev: number }
  | { next: 'failed'; error: { Error: string; Cause: string } }
  /**
   * Inside the Map only: the service step waits on its approval (`ApproveServiceStep`, a task-token wait of
   * `timeoutSeconds`, what is left until the approval expires), then runs again to act on the decision.
   */
  | { next: 'approval'; approvalId: string; timeoutSeconds: number }
  | { next: 'stop' };

export type GraphDefinitionOf = (run: Run) => Promise<GraphDefinition>;
