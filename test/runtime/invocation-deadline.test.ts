/**
 * The Turn handler gives its model calls the invocation's remaining time less a margin to commit, read from
 * the Lambda context as each call starts (the port is built once per container, the context is per call).
 */
import { describe, expect, it } from 'vitest';
import { createTurnHandler } from '../../functions/turn.ts';
import { COMMIT_MARGIN_MS, modelCallTimeLimitMs } from '../../shared/runtime/aws/invocation-deadline.ts';
import { createTelemetry } from '../../shared/runtime/telemetry.ts';

const lambdaContext = (remainingMs: () => number) => ({
  functionName: 'Turn',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-3:123456789012:function:Turn',
  memoryLimitInMB: 256,
  awsRequestId: 'req-1',
  getRemainingTimeInMillis: remainingMs,
});

describe('Turn handler: invocation deadline', () => {
  it("gives a model call the context's remaining time less the commit margin, as the call starts", async () => {
    // Prepare: the deps stand in for the turn and read the limit twice, as two calls of one invocation would.
    let remaining = 300_000;
    const seen: (number | undefined)[] = [];
    const handler = createTurnHandler(async () => {
      seen.push(modelCallTimeLimitMs());
      remaining = 100_000;
      seen.push(modelCallTimeLimitMs());
      throw new Error('stop here');
    }, createTelemetry());

    // Act
    const invocation = handler(
      { runId: 'run-1', turn: 0 },
      lambdaContext(() => remaining),
    );

    // Assess
    await expect(invocation).rejects.toThrow('stop here');
    expect(seen).toEqual([300_000 - COMMIT_MARGIN_MS, 100_000 - COMMIT_MARGIN_MS]);
    expect(modelCallTimeLimitMs()).toBeUndefined();
  });
});
