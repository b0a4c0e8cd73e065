/**
 * A `service_task` step: one action call under the ledger protocol of the agent kind (shared/core):
 * gate → ledger row `pending` (with the step marked `running`, one write) → dispatch with the row's
 * Idempotency-Key → settle once (with the step's outcome, one write). A retried invocation finds the row:
 * settled → its outcome is reused; `pending` and idempotent → sent again with the same key; `pending` and not
 * idempotent → "outcome unknown", never repeated (the step fails; an operator decides). Then it decides what is
 * next on the state it just committed (decide.ts), so a chain of service steps needs no separate Advance.
 */
import type { ActionCatalog } from '../core/actions.ts';
import { isoAt, RunHandle } from '../core/engine.ts';
import { effectiveGrant, evaluateGate } from '../core/gate.ts';
import { argsHashOf, idempotencyKeyFor } from '../core/identity.ts';
import type { Clock, EgressPort, SecretsPort, ToolOutcome } from '../core/ports.ts';
import { capToolResult } from '../core/transcript-limits.ts';
import { settleAudit, settledRow, thrownOutcome, UNKNOWN_AFTER_STOP } from '../core/uncertain.ts';
import type { GraphDefinition } from '../graph/definition.ts';
import { type GraphStep, isFinishedStep } from '../schemas/graph-step.ts';
import type { LedgerRow } from '../schemas/ledger.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import { isConflict } from './advance.ts';
import { serviceStepView } from './agent-view.ts';
import { decideNext, mergeSteps } from './decide.ts';
import { renderArgs } from './expressions.ts';
import type { GraphDefinitionOf, GraphNext, GraphRunStore, StepRef } from './ports.ts';
import { runDataOf, stepViews } from './run-data.ts';
import { moveStep, writesOf } from './step-writes.ts';

export type ServiceStepDeps = {
  store: GraphRunStore;
  definitionOf: GraphDefinitionOf;
  clock: Clock;
  actions: ActionCatalog;
  egress: EgressPort;
  secrets: SecretsPort;
};

/** The ledger identity of a step attempt: a crash retry finds the same row; an operator's retry gets a new one. */
export const stepToolUseId = (stepId: string, attempt: number): string => `step-${stepId}-${attempt}`;

/**
 * Runs the step; with `decide` (a lone ready step) it then decides what is next, otherwise (inside the Map,
 * where Advance decides once every ready step ended) it answers `stop`.
 */
export async function runServiceStep(
  deps: ServiceStepDeps,
  ref: StepRef,
  options: { decide: boolean } = { decide: true },
): Promise<GraphNext> {
  const decideDeps = options.decide ? deps : { ...deps, decideAfter: false as const };
  for (let round = 1; ; round++) {
    const loaded = await deps.store.loadGraphRun(ref.runId, { ledger: true });
    if (!loaded || isTerminalRunStatus(loaded.run.status)) return { next: 'stop' };
    const definition = await deps.definitionOf(loaded.run);
    try {
      return await serviceOnce(decideDeps, definition, loaded.run, loaded.steps, loaded.ledger, ref);
    } catch (error) {
      if (!isConflict(error) || round >= 5) throw error;
    }
  }
}

/** Decides what is next after the step, unless it runs inside the Map. */
function decideAfter(
  deps: ServiceStepDeps & { decideAfter?: false },
  run: Run,
  steps: GraphStep[],
  definition: GraphDefinition,
): Promise<GraphNext> {
  return deps.decideAfter === false
    ? Promise.resolve({ next: 'stop' })
    : decideNext(deps, run, steps, definition);
}

async function serviceOnce(
  deps: ServiceStepDeps & { decideAfter?: false },
  definition: GraphDefinition,
  run: Run,
  steps: GraphStep[],
  ledger: LedgerRow[],
  ref: StepRef,
): Promise<GraphNext> {
  const node = definition.nodes.find((candidate) => candidate.id === ref.stepId);
  if (node?.type !== 'service_task') throw new Error(`step ${ref.stepId} is not a service_task`);
  const step = steps.find((candidate) => candidate.stepId === ref.stepId);
  // This attempt already ended (a retried invocation after the settle): only decide again.
  if (step && (step.attempt > ref.attempt || (step.attempt === ref.attempt && isFinishedStep(step.status))))
    return decideAfter(deps, run, steps, definition);
  const toolUseId = stepToolUseId(ref.stepId, ref.attempt);
  const row = ledger.find((candidate) => candidate.toolUseId === toolUseId);
  const handle = new RunHandle(run, deps);
  const view = serviceStepView(definition, node);
  const at = () => isoAt(deps.clock);
  const finish = async (outcome: ToolOutcome, settle: LedgerRow | undefined, args?: unknown) => {
    const current = steps.find((candidate) => candidate.stepId === ref.stepId);
    const move = moveStep({
      runId: run.runId,
      stepId: ref.stepId,
      type: 'service_task',
      current,
      status: outcome.isError ? 'failed' : 'succeeded',
      at: at(),
      fields: {
        attempt: ref.attempt,
        ...(args === undefined ? {} : { input: args }),
        ...(outcome.isError
          ? {
              error: {
                name: outcome.outcomeUnknown ? 'OutcomeUnknown' : 'ActionFailed',
                message: outcome.content.slice(0, 2000),
              },
            }
          : { output: outputOf(outcome.content) }),
      },
      ...(outcome.isError ? { reason: outcome.content } : {}),
    });
    const { steps: writes, audit } = writesOf([move]);
    await handle.commit({
      steps: writes,
      ...(settle ? { ledgerSettle: [settledRow(settle, outcome, at())] } : {}),
      audit: [
        ...(settle ? [settleAudit({ id: toolUseId }, node.action, outcome, { stepId: ref.stepId })] : []),
        ...audit,
      ],
    });
    return decideAfter(deps, handle.run, mergeSteps(steps, [move]), definition);
  };

  if (row && row.status !== 'pending')
    return finish(row.outcome ?? { content: 'No result was recorded.', isError: true }, undefined);
  const action = deps.actions.resolve(node.action, view);
  if (row) {
    if (!row.idempotent || !action) return finish(UNKNOWN_AFTER_STOP, row);
    // Idempotent and pending: send again with the same Idempotency-Key (the row's).
    return finish(await dispatch(deps, run, action, step?.input, row), row, step?.input);
  }
  // Not started yet: no new step starts while paused (inside the Map the answer is ignored; Advance decides).
  if (run.paused) return { next: 'paused' };
  const data = runDataOf(run.input, stepViews(definition, steps, run.input));
  let args: unknown;
  try {
    args = await renderArgs(`step ${ref.stepId} args`, node.args, data);
  } catch (error) {
    return finish({ content: (error as Error).message, isError: true }, undefined);
  }
  const gate = evaluateGate(
    { name: node.action, input: args },
    effectiveGrant(view, view, true),
    deps.actions,
    view,
  );
  if (gate.decision === 'deny')
    return finish({ content: `Denied: ${gate.reason}.`, isError: true }, undefined, args);
  if (gate.decision === 'needs_approval')
    return finish(
      {
        content: `Denied: '${node.action}' needs approval, which service steps do not request yet.`,
        isError: true,
      },
      undefined,
      args,
    );
  const pending: LedgerRow = {
    schemaVersion: 1,
    runId: run.runId,
    toolUseId,
    turn: 0,
    tool: gate.action.name,
    argsHash: argsHashOf(gate.action.name, gate.input),
    idempotent: gate.action.idempotent,
    idempotencyKey: idempotencyKeyFor(run.runId, ref.attempt, toolUseId),
    status: 'pending',
    attempts: 1,
    createdAt: at(),
  };
  const running = moveStep({
    runId: run.runId,
    stepId: ref.stepId,
    type: 'service_task',
    current: step,
    status: 'running',
    at: at(),
    fields: { attempt: ref.attempt, input: gate.input },
  });
  await handle.commit({
    steps: [running.write],
    ledgerCreate: [pending],
    audit: [
      running.audit,
      { type: 'gate_decision', actor: 'system', data: { toolUseId, tool: node.action, decision: 'allow' } },
      {
        type: 'dispatch',
        actor: 'system',
        data: {
          toolUseId,
          tool: pending.tool,
          argsHash: pending.argsHash,
          idempotencyKey: pending.idempotencyKey,
        },
      },
    ],
  });
  steps = mergeSteps(steps, [running]);
  return finish(await dispatch(deps, handle.run, gate.action, gate.input, pending), pending, gate.input);
}

async function dispatch(
  deps: ServiceStepDeps,
  run: Run,
  action: NonNullable<ReturnType<ActionCatalog['resolve']>>,
  input: unknown,
  row: LedgerRow,
): Promise<ToolOutcome> {
  let outcome: ToolOutcome;
  try {
    outcome = await action.run(input, {
      idempotencyKey: row.idempotencyKey,
      egress: deps.egress,
      secrets: deps.secrets,
      clock: deps.clock,
      scope: { runId: run.runId, owner: run.owner, workflowId: run.workflowId },
    });
  } catch (error) {
    outcome = thrownOutcome(error);
  }
  return { ...outcome, content: capToolResult(deps.secrets.redact(outcome.content)) };
}

/**
 * A service step's structured output: the action's JSON answer (an HTTP action's result is its status line
 * and headers, a blank line, then the body: the body is read), or its text as `{ text }`.
 */
export function outputOf(content: string): unknown {
  const blank = content.indexOf('\n\n');
  for (const candidate of [content, blank >= 0 ? content.slice(blank + 2) : undefined]) {
    if (candidate === undefined) continue;
    try {
      const parsed = JSON.parse(candidate) as unknown;
      if (parsed !== null && typeof parsed === 'object') return parsed;
    } catch {}
  }
  return { text: content };
}
