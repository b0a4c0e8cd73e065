/**
 * A `service_task` step: one action call under the ledger protocol of the agent kind (shared/core):
 * gate (on the live policy: service-policy.ts) → ledger row `pending` (with the step marked `running`, one
 * write) → dispatch with the row's Idempotency-Key → settle once (with the step's outcome, one write). A call
 * gated `needs_approval` waits for the approval machinery first (service-approval.ts); `deny` is refused and
 * never called. A retried invocation finds the row: settled → its outcome is reused; `pending` and idempotent →
 * sent again with the same key; `pending` and not idempotent → "outcome unknown", never repeated (the step
 * fails; an operator decides). Then it decides what is next on the state it just committed (decide.ts), so a
 * chain of service steps needs no separate Advance.
 */
import { RunHandle } from '../core/engine.ts';
import { evaluateGate } from '../core/gate.ts';
import { WorkflowHeadMovedError } from '../core/store-errors.ts';
import { UNKNOWN_AFTER_STOP } from '../core/uncertain.ts';
import type { GraphDefinition } from '../graph/definition.ts';
import { type InvocationSteps, InvocationStepsSpentError } from '../graph/expression-bounds.ts';
import { invocationSteps } from '../graph/expressions.ts';
import { type GraphStep, isFinishedStep } from '../schemas/graph-step.ts';
import type { LedgerRow } from '../schemas/ledger.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import { isConflict } from './advance.ts';
import { serviceStepView } from './agent-view.ts';
import { renderArgs } from './expressions.ts';
import type { GraphNext, StepRef } from './ports.ts';
import { runDataOf, stepViews } from './run-data.ts';
import { requestStepApproval, settleStepApproval, waitsOnApproval } from './service-approval.ts';
import { decideAfter, finishStep, refuseStep, type StepCall, startCall, stepOf } from './service-call.ts';
import { dispatch, type ServiceStepDeps } from './service-dispatch.ts';
import { assumedPolicy, type LivePolicy, readLivePolicy } from './service-policy.ts';

export { outputOf, type ServiceStepDeps } from './service-dispatch.ts';

/** The ledger identity of a step attempt: a crash retry finds the same row; an operator's retry gets a new one. */
export const stepToolUseId = (stepId: string, attempt: number): string => `step-${stepId}-${attempt}`;

/**
 * Runs the step; with `decide` (a lone ready step) it then decides what is next, otherwise (inside the Map,
 * where Advance decides once every ready step ended) it answers `stop`, or `approval` while it waits on one.
 */
export async function runServiceStep(
  deps: ServiceStepDeps,
  ref: StepRef,
  options: { decide: boolean } = { decide: true },
): Promise<GraphNext> {
  const decideDeps = options.decide ? deps : { ...deps, decideAfter: false as const };
  // One for every try: a try after a write conflict draws from what the tries before it left.
  const invocation = invocationSteps();
  for (let round = 1; ; round++) {
    const loaded = await deps.store.loadGraphRun(ref.runId, { ledger: true });
    if (!loaded || isTerminalRunStatus(loaded.run.status)) return { next: 'stop' };
    const definition = await deps.definitionOf(loaded.run);
    try {
      return await serviceOnce(
        decideDeps,
        definition,
        loaded.run,
        loaded.steps,
        loaded.ledger,
        ref,
        invocation,
      );
    } catch (error) {
      if (!isConflict(error) || round >= 5) throw error;
    }
  }
}

async function serviceOnce(
  deps: StepCall['deps'],
  definition: GraphDefinition,
  run: Run,
  steps: GraphStep[],
  ledger: LedgerRow[],
  ref: StepRef,
  invocation: InvocationSteps,
): Promise<GraphNext> {
  const node = definition.nodes.find((candidate) => candidate.id === ref.stepId);
  if (node?.type !== 'service_task') throw new Error(`step ${ref.stepId} is not a service_task`);
  const toolUseId = stepToolUseId(ref.stepId, ref.attempt);
  const view = serviceStepView(definition, node);
  const call: StepCall = {
    deps,
    definition,
    node,
    view,
    handle: new RunHandle(run, deps),
    steps,
    ref,
    toolUseId,
    invocation,
  };
  const step = stepOf(call);
  // This attempt already ended (a retried invocation after the settle): only decide again.
  if (step && (step.attempt > ref.attempt || (step.attempt === ref.attempt && isFinishedStep(step.status))))
    return decideAfter(call);
  const row = ledger.find((candidate) => candidate.toolUseId === toolUseId);
  if (row && row.status !== 'pending')
    return finishStep(call, row.outcome ?? { content: 'No result was recorded.', isError: true });
  if (row) {
    const action = deps.actions.resolve(node.action, view);
    if (!row.idempotent || !action) return finishStep(call, UNKNOWN_AFTER_STOP, { settle: row });
    // Idempotent and pending: send again with the same Idempotency-Key (the row's).
    const outcome = await dispatch(deps, run, action, step?.input, row, {
      credRefs: definition.credRefs,
      rerun: true,
    });
    return finishStep(call, outcome, { settle: row, args: step?.input });
  }
  // Not started yet: no new step starts while paused (inside the Map the answer is ignored; Advance decides).
  if (!waitsOnApproval(step, ref.attempt) && run.paused) return { next: 'paused', rev: run.rev };
  return underLivePolicy(call, async (policy) => {
    if (waitsOnApproval(step, ref.attempt)) return settleStepApproval(call, policy, step);
    const data = runDataOf(run.input, stepViews(definition, steps, run.input));
    let args: unknown;
    try {
      args = await renderArgs(`step ${ref.stepId} args`, node.args, data, invocation.decision());
    } catch (error) {
      if (error instanceof InvocationStepsSpentError) throw error;
      return finishStep(call, { content: (error as Error).message, isError: true });
    }
    const gate = evaluateGate({ name: node.action, input: args }, policy.grant, deps.actions, view);
    if (gate.decision === 'deny')
      return refuseStep(call, { cause: 'gate', name: 'GateDenied', reason: `denied: ${gate.reason}` }, args);
    if (gate.decision === 'needs_approval') return requestStepApproval(call, policy, gate);
    return startCall(call, policy, gate.action, gate.input);
  });
}

/**
 * Acts on the assumed live policy (no read); the write that lets a call go ahead carries the head as its
 * condition. If the head moved (disabled, deleted, republished), nothing was written: read it and act again.
 */
async function underLivePolicy(
  call: StepCall,
  act: (policy: LivePolicy) => Promise<GraphNext>,
): Promise<GraphNext> {
  let policy = assumedPolicy(call.handle.run, call.view);
  for (let round = 1; ; round++) {
    try {
      return await act(policy);
    } catch (error) {
      if (!(error instanceof WorkflowHeadMovedError) || round >= 3) throw error;
      policy = await readLivePolicy(call.deps, call.handle.run, call.node, call.view);
    }
  }
}
