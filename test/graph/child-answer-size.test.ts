/**
 * A child run's answer to its graph step's wait against SendTaskSuccess' limit: `output` is at most 262,144
 * bytes of UTF-8 (https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskSuccess.html),
 * checked here with the local Step Functions stand-in's own validation of it. The result text is at most
 * 64 KiB, but a control character takes six bytes as a JSON string (`\u0000`): before the fix, the answer for
 * such a text (a tar artifact's NUL padding, a model's answer full of them) was about 384 KiB, SendTaskSuccess
 * refused it (InvalidOutput) and the step waited out its backstop. Now the answer leaves the text in the child
 * run and CompleteStep reads it from there, on the store (DynamoDB Local).
 */
import { describe, expect, it } from 'vitest';
import { MAX_RESULT_TEXT_BYTES } from '../../shared/core/transcript-limits.ts';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { completeStep } from '../../shared/graph-run/complete-step.ts';
import {
  answerParentStep,
  childAnswer,
  MAX_CHILD_ANSWER_BYTES,
} from '../../shared/graph-run/parent-answer.ts';
import { childRunIdFor, startStepWait } from '../../shared/graph-run/wait.ts';
import { humanTaskExpiry } from '../../shared/human-tasks/expiry.ts';
import { SFN_PAYLOAD_LIMIT_BYTES } from '../../shared/local/sfn/types.ts';
import { validateTaskOutput } from '../../shared/local/sfn/validation.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { apiHarness } from '../api/helpers.ts';
import { aliceRunOf, graphRunDeps, oneAgentStepGraph } from '../support/graph-fixtures.ts';

/** The longest result a run keeps, all of it NUL characters. */
const NULS = '\u0000'.repeat(MAX_RESULT_TEXT_BYTES);

/** SendTaskSuccess as Step Functions takes it: the output JSON within 262,144 bytes, or InvalidOutput. */
class CheckedTokens {
  readonly outputs: object[] = [];
  async sendSuccess(_token: string, output: object) {
    validateTaskOutput(JSON.stringify(output));
    this.outputs.push(output);
    return 'sent' as const;
  }
}

describe('Function: childAnswer', () => {
  const child = (text: string) =>
    ({ runId: 'run_child', status: 'done', result: { text } }) as unknown as Run;

  it('carries a text that fits', () => {
    expect(childAnswer(child('{"ok":true}'))).toEqual({
      childRunId: 'run_child',
      status: 'done',
      text: '{"ok":true}',
    });
  });

  it('fits SendTaskSuccess for the longest result text, control characters and all', () => {
    const output = JSON.stringify(childAnswer(child(NULS)));
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(MAX_CHILD_ANSWER_BYTES);
    expect(MAX_CHILD_ANSWER_BYTES).toBeLessThan(SFN_PAYLOAD_LIMIT_BYTES);
    expect(() => validateTaskOutput(output)).not.toThrow();
  });
});

describe("a graph step's answer too large to carry", () => {
  const tokens = new CheckedTokens();
  const h = apiHarness();
  const deps = () => graphRunDeps(h, h.executions, humanTaskExpiry({ store: h.store, clock: h.clock }));

  it("is answered, and the step's output is the child's whole text read from the child run", async () => {
    // Prepare: the agent step waits on its child, which ends done with the longest text of NULs.
    const run = await aliceRunOf(h, oneAgentStepGraph('large-answer'));
    await advanceGraphRun(deps(), run.runId);
    const wait = { runId: run.runId, stepId: 'triage', type: 'agent_task' as const, attempt: 1 };
    expect(await startStepWait(deps(), { ...wait, taskToken: 'token-large' })).toBe('child_started');
    const child = (await h.store.getRun(childRunIdFor(run.runId, 'triage', 1)))!;
    await h.store.commit({ run: child, next: { ...child, status: 'done', result: { text: NULS } } });

    // Act: Deliver answers the parent step; CompleteStep records the answer.
    const ended = await h.store.getRun(child.runId);
    expect(await answerParentStep({ store: h.store, taskTokens: tokens }, ended)).toBe(true);
    const status = await completeStep(deps(), { ...wait, result: tokens.outputs.at(-1) });

    // Assess
    expect(status).toBe('succeeded');
    const step = (await h.store.loadGraphRun(run.runId))?.steps.find((s) => s.stepId === 'triage');
    expect(step?.status).toBe('succeeded');
    expect((step?.output as { text?: string } | undefined)?.text).toBe(NULS);
  });
});
