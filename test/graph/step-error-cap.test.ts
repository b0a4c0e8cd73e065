/**
 * A graph step that fails with a very long error, on the store (DynamoDB Local). The error of a wait that failed
 * is a Step Functions Catch's `Cause`, a Lambda error's JSON whose `errorMessage` is outside text (a model API's
 * error body, an engine's answer: https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html).
 * Before, it was stored whole: the step item then held a message past the 2,000 characters its schema reads, so
 * the graph run could no longer be loaded (every Advance, every listing failed), and the run's error, which quotes
 * the failed step, was as long. Both are now stored cut (shared/core/stored-error.ts), well-formed, and the run's
 * audit chain verifies.
 */
import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import { markRunFailed } from '../../shared/core/mark-failed.ts';
import { STORED_ERROR_MESSAGE_UNITS, STORED_ERROR_NAME_UNITS } from '../../shared/core/stored-error.ts';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { completeStep } from '../../shared/graph-run/complete-step.ts';
import { unconfiguredHumanTasks } from '../../shared/graph-run/human-task-port.ts';
import { startStepWait } from '../../shared/graph-run/wait.ts';
import { humanTaskExpiry } from '../../shared/human-tasks/expiry.ts';
import type { ExecutionsPort } from '../../shared/runs/ports.ts';
import { stepErrorOf } from '../../shared/runtime/step-error.ts';
import { GraphStepSchema } from '../../shared/schemas/graph-step.ts';
import { apiHarness } from '../api/helpers.ts';
import { aliceRunOf, graphRunDeps, oneAgentStepGraph } from '../support/graph-fixtures.ts';

const MACHINE = 'arn:aws:states:local:0:execution:agent';
const EMOJI = '\u{1F600}';

describe('A graph step that fails with a very long error', () => {
  const h = apiHarness();
  const executions: ExecutionsPort = {
    start: async (name) => ({ executionArn: `${MACHINE}:${name}` }),
    stop: async () => undefined,
    arnOf: (_kind, name) => `${MACHINE}:${name}`,
  };
  const deps = () => graphRunDeps(h, executions, unconfiguredHumanTasks);

  it('stores the step error and the run error cut and well-formed; the run loads and its chain verifies', async () => {
    // Prepare: an agent step waiting on its child; the wait fails with a Lambda error whose message is an emoji
    // run with a lone surrogate in it (JSON carries one as an escape), far past every cap.
    const run = await aliceRunOf(h, oneAgentStepGraph('long-step-error'));
    await advanceGraphRun(deps(), run.runId);
    const wait = { runId: run.runId, stepId: 'triage', type: 'agent_task' as const, attempt: 1 };
    expect(await startStepWait(deps(), { ...wait, taskToken: 'token-1' })).toBe('child_started');
    const errorMessage = `ab\ud83d${EMOJI.repeat(3_000)}`;
    const errorName = `Custom${'E'.repeat(400)}Error`;

    // Act: RecordStepError (CompleteStep with the Catch's error), Advance's verdict, then MarkGraphFailed with it
    const completeDeps = { ...deps(), humanTasks: humanTaskExpiry({ store: h.store, clock: h.clock }) };
    const status = await completeStep(completeDeps, {
      ...wait,
      error: { Error: errorName, Cause: JSON.stringify({ errorType: errorName, errorMessage }) },
    });
    const verdict = await advanceGraphRun(deps(), run.runId);
    const caught = verdict.next === 'failed' ? verdict.error : undefined;
    await markRunFailed({ store: h.store, clock: h.clock }, { runId: run.runId, error: stepErrorOf(caught) });

    // Assess: the step, as stored and read back
    expect(status).toBe('failed');
    const loaded = await h.store.loadGraphRun(run.runId);
    const step = loaded?.steps.find((candidate) => candidate.stepId === 'triage');
    expect(step?.status).toBe('failed');
    const stepError = step?.error ?? { name: '', message: '' };
    expect(stepError.name).toBe(errorName.slice(0, STORED_ERROR_NAME_UNITS));
    expect(stepError.message.isWellFormed()).toBe(true);
    // 'ab', U+FFFD, then whole emoji: the 2,000-unit cut falls inside the 999th and leaves it out.
    expect(stepError.message).toBe(`ab\ufffd${EMOJI.repeat(998)}`);
    expect(GraphStepSchema.safeParse(step).success).toBe(true);
    // The run's error quotes the failed step, cut the same way.
    const ended = await h.store.getRun(run.runId);
    expect(ended).toMatchObject({ status: 'failed', stopReason: 'error', error: { name: 'StepFailed' } });
    expect(ended?.error?.message.startsWith('step triage failed: ab\ufffd')).toBe(true);
    expect(ended?.error?.message.length).toBeLessThanOrEqual(STORED_ERROR_MESSAGE_UNITS);
    expect(ended?.error?.message.isWellFormed()).toBe(true);
    const audit = await h.store.listAudit(run.runId);
    expect(verifyAuditChain(audit, { owner: run.owner, runId: run.runId })).toMatchObject({ ok: true });
  });
});
