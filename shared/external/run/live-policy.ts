/**
 * The live policy of an external run, checked before each of its side effects (dispatch, delivery) the way an
 * agent turn checks its own (core/live-policy.ts, turn-context.ts): the workflow head must still be enabled and
 * not deleted, and when a later version was published, that version's mode for the same work (its definition,
 * or for a graph step's child run the same node) caps the run's: the stricter mode wins, a version that no
 * longer holds this work grants nothing. The mode stamped on the run is only the most it may do.
 *
 * Without a read of its own in the common case: the write that lets the side effect go ahead (Start's `pending`
 * row, each Observe's record, Finish's end) carries the head as a condition (`liveHead`), assuming the version
 * last seen live (`external.liveVersion`, else the run's own) is still the latest. A workflow disabled, deleted
 * or republished fails that write (WorkflowHeadMovedError, nothing written); only then is the head read.
 */
import { liveHeadCondition, liveVersionOf } from '../../core/live-policy.ts';
import { WorkflowHeadMovedError } from '../../core/store-errors.ts';
import type { AuditInput, RunStore } from '../../core/store-port.ts';
import { externalDefinitionOf } from '../../graph-run/external-view.ts';
import type { ExternalRun } from '../../schemas/external-run.ts';
import type { Run } from '../../schemas/run.ts';
import type { ExternalMode } from '../definition.ts';

/** What the live policy lets the run do: go on in `mode` under head version `latestVersion`, or nothing. */
export type ExternalPolicy =
  | { allowed: true; mode: ExternalMode; latestVersion: number }
  | { allowed: false; reason: string };

type ExternalRunRecord = Run & { external: ExternalRun };

const PERMISSIVENESS: Record<ExternalMode, number> = { off: 0, shadow: 1, report_only: 2, live: 3 };
const stricterMode = (a: ExternalMode, b: ExternalMode): ExternalMode =>
  PERMISSIVENESS[a] <= PERMISSIVENESS[b] ? a : b;

/** What a step assumes until its write says otherwise: the head as last seen, the run's mode. */
export function assumedPolicy(run: ExternalRunRecord): ExternalPolicy & { allowed: true } {
  return {
    allowed: true,
    mode: run.external.mode,
    latestVersion: run.external.liveVersion ?? run.workflowVersion,
  };
}

/** Reads the head (and, if newer, its latest version): the live policy, failing closed. */
export async function readExternalPolicy(
  store: Pick<RunStore, 'getWorkflowHead' | 'getWorkflowVersion'>,
  run: ExternalRunRecord,
): Promise<ExternalPolicy> {
  const latestVersion = liveVersionOf(await store.getWorkflowHead(run.owner, run.workflowId));
  if (latestVersion === undefined)
    return { allowed: false, reason: `workflow ${run.workflowName} was disabled or deleted` };
  if (latestVersion === run.workflowVersion) return { allowed: true, mode: run.external.mode, latestVersion };
  const latest = await store.getWorkflowVersion(run.owner, run.workflowId, latestVersion);
  let liveMode: ExternalMode | undefined;
  try {
    liveMode = latest ? externalDefinitionOf(latest, run).mode : undefined;
  } catch {
    // Another kind, or a graph whose node is gone or no longer an external step: the work was withdrawn.
    liveMode = undefined;
  }
  if (liveMode === undefined)
    return {
      allowed: false,
      reason: `version ${latestVersion} of workflow ${run.workflowName} no longer holds this external work`,
    };
  const mode = stricterMode(run.external.mode, liveMode);
  if (mode === 'off')
    return {
      allowed: false,
      reason: `version ${latestVersion} of workflow ${run.workflowName} is in mode off`,
    };
  return { allowed: true, mode, latestVersion };
}

type Allowed = ExternalPolicy & { allowed: true };

/**
 * What a write under `policy` adds: the head condition and, when the policy was read (the head moved), the
 * version and mode later steps assume, recorded on the run and in its audit chain.
 */
export type PolicyWrite = {
  policy: Allowed;
  patch: Partial<ExternalRun>;
  audit: AuditInput[];
  condition: ReturnType<typeof liveHeadCondition>;
};

/**
 * Runs `write` (one fenced commit carrying `condition`) under the live policy: first assumed; if the head moved,
 * read and tried again. Answers what the write returned and the policy it landed under, or the refusal (then
 * nothing was written: the caller ends the run denied, and sends nothing).
 */
export async function underLivePolicy<T>(
  store: Pick<RunStore, 'getWorkflowHead' | 'getWorkflowVersion'>,
  run: ExternalRunRecord,
  write: (under: PolicyWrite) => Promise<T>,
): Promise<{ allowed: true; policy: Allowed; value: T } | { allowed: false; reason: string }> {
  let under: PolicyWrite = {
    policy: assumedPolicy(run),
    patch: {},
    audit: [],
    condition: liveHeadCondition(run, assumedPolicy(run).latestVersion),
  };
  for (let attempt = 1; ; attempt++) {
    try {
      return { allowed: true, policy: under.policy, value: await write(under) };
    } catch (error) {
      // Moved three times in a row: let the step fail and be retried rather than loop here.
      if (!(error instanceof WorkflowHeadMovedError) || attempt >= 3) throw error;
    }
    const policy = await readExternalPolicy(store, run);
    if (!policy.allowed) return policy;
    under = {
      policy,
      patch: { liveVersion: policy.latestVersion, mode: policy.mode },
      audit: [
        {
          type: 'external_execution',
          actor: 'system',
          data: { event: 'live_policy', latestVersion: policy.latestVersion, mode: policy.mode },
        },
      ],
      condition: liveHeadCondition(run, policy.latestVersion),
    };
  }
}
