/**
 * The child external run of an external step: a run of the external kind with a parent pointer, bound to the
 * graph's version (its definition is the node's view, external-view.ts), whose input is the payload rendered
 * when the step started. The external state machine runs it like any external run (Start, Observe, Finish,
 * the same ledger rows, audit and cancel); when it ends, its answer goes to the step's wait (parent-answer.ts).
 */

import { prepareRun } from '../core/new-run.ts';
import type { Clock } from '../core/ports.ts';
import type { GraphDefinition } from '../graph/definition.ts';
import type { GraphStep } from '../schemas/graph-step.ts';
import type { Run } from '../schemas/run.ts';
import type { NewRun } from '../store/runs.ts';
import { type ExternalTaskNode, externalStepView } from './external-view.ts';

export function externalChildRun(
  deps: { clock: Clock },
  graph: GraphDefinition,
  run: Run,
  step: GraphStep,
  node: ExternalTaskNode,
  childRunId: string,
): NewRun {
  const payload = (step.input as { payload?: unknown } | undefined)?.payload ?? {};
  const prepared = prepareRun({
    version: {
      schemaVersion: 1,
      owner: run.owner,
      workflowId: run.workflowId,
      version: run.workflowVersion,
      definition: externalStepView(graph, node),
      status: 'published',
      createdAt: run.createdAt,
    },
    trigger: { type: 'on_demand', caller: `graph:${run.runId}` },
    input: payload,
    clock: deps.clock,
    ids: { next: () => childRunId },
    actor: 'system',
  });
  return {
    ...prepared,
    run: { ...prepared.run, parent: { runId: run.runId, stepId: step.stepId, attempt: step.attempt } },
  };
}
