/** Building step items and their audit entries: every step change is a conditional write plus one entry. */
import { cutText } from '../core/byte-caps.ts';
import type { AuditInput } from '../core/store-port.ts';
import { storedError } from '../core/stored-error.ts';
import type { GraphNodeType } from '../graph/definition.ts';
import type { GraphStep, StepExpectation, StepStatus, StepWrite } from '../schemas/graph-step.ts';

/** The view of a node that has no item yet. */
export const PENDING: Pick<GraphStep, 'status' | 'attempt'> = { status: 'pending', attempt: 0 };

export function expectationOf(step: GraphStep | undefined): StepExpectation {
  return step ? { status: step.status, attempt: step.attempt } : 'absent';
}

/**
 * Moves a step (`current`: its item, or none while pending) to `status`; `fields` overrides the rest. A step's
 * `error` is stored bounded and well-formed (stored-error.ts): a Lambda's `errorMessage`, a template's or an
 * engine's text can be any length, and a step item with a message past the schema's cap could not be read back.
 */
export function moveStep(args: {
  runId: string;
  stepId: string;
  type: GraphNodeType;
  current: GraphStep | undefined;
  status: StepStatus;
  at: string;
  fields?: Partial<GraphStep>;
  reason?: string;
}): { write: StepWrite; audit: AuditInput } {
  const { current, status, at } = args;
  const base: GraphStep = current ?? {
    schemaVersion: 1,
    runId: args.runId,
    stepId: args.stepId,
    type: args.type,
    ...PENDING,
    updatedAt: at,
  };
  const finished =
    status === 'succeeded' || status === 'failed' || status === 'skipped' || status === 'cancelled';
  const step: GraphStep = {
    ...base,
    status,
    updatedAt: at,
    ...(status === 'running' && !base.startedAt ? { startedAt: at } : {}),
    ...(finished ? { endedAt: at } : {}),
    ...args.fields,
    ...(args.fields?.error ? { error: storedError(args.fields.error) } : {}),
  };
  return {
    write: { step, expect: expectationOf(current) },
    audit: {
      type: 'step_changed',
      actor: 'system',
      data: {
        stepId: step.stepId,
        type: step.type,
        attempt: step.attempt,
        from: base.status,
        to: status,
        ...(args.reason ? { reason: cutText(args.reason, 500) } : {}),
      },
    },
  };
}

export type StepMove = ReturnType<typeof moveStep>;

export const writesOf = (moves: StepMove[]) => ({
  steps: moves.map((move) => move.write),
  audit: moves.map((move) => move.audit),
});
