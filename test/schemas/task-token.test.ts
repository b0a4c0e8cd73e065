/**
 * AWS issues task tokens of up to 2,048 characters
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskSuccess.html); the local runner's are
 * ~60. Every payload a wait's Lambda receives must take a token as long as AWS's, or the wait fails on AWS only.
 */
import { describe, expect, it } from 'vitest';
import { AwaitResumeEventSchema, StepWaitEventSchema } from '../../shared/graph-run/events.ts';
import { RequestApprovalEventSchema } from '../../shared/runtime/events.ts';
import { GraphStepSchema } from '../../shared/schemas/graph-step.ts';

const longest = 'A'.repeat(2048);
const tooLong = 'A'.repeat(2049);

const payloads = {
  'a graph step wait (AgentTask, ExternalTask, HumanTask)': (taskToken: string) =>
    StepWaitEventSchema.safeParse({
      runId: 'run_1',
      stepId: 's1',
      type: 'human_task',
      attempt: 1,
      taskToken,
    }),
  'a graph pause (AwaitResume)': (taskToken: string) =>
    AwaitResumeEventSchema.safeParse({ runId: 'run_1', taskToken }),
  'an approval wait (RequestApproval)': (taskToken: string) =>
    RequestApprovalEventSchema.safeParse({ runId: 'run_1', turn: 0, taskToken }),
};

describe('task tokens as long as AWS issues them', () => {
  it.each(Object.entries(payloads))(
    '%s takes a 2,048-character token and refuses a longer one',
    (_, parse) => {
      expect(parse(longest).success).toBe(true);
      expect(parse(tooLong).success).toBe(false);
    },
  );

  it('a stored graph step keeps a 2,048-character token', () => {
    const shape = GraphStepSchema.shape.taskToken;
    expect(shape.safeParse(longest).success).toBe(true);
  });
});
