import { describe, expect, it } from 'vitest';
import { TaskTokenSendError } from '../../shared/approvals-http/errors.ts';
import { sfnTaskTokens } from '../../shared/approvals-http/task-tokens.ts';
import { sfnError, startSfnWire, useSfnWire } from './sfn-wire.ts';

const wire = useSfnWire();

const TOKEN = 'AQCEAAAAKgAAAAMAAAAAAAAAAT-task-token-secret';

function port(sleeps: number[] = []) {
  return sfnTaskTokens(wire.client, {
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
}

describe('sfnTaskTokens', () => {
  it('sends SendTaskSuccess in the AWS JSON 1.0 wire format with the output as a JSON string', async () => {
    const answer = await port().sendSuccess(TOKEN, { runId: 'run_1', decidedApprovalId: 'apr_1' });

    expect(answer).toBe('sent');
    expect(wire.calls).toHaveLength(1);
    expect(wire.calls[0]).toMatchObject({
      target: 'AWSStepFunctions.SendTaskSuccess',
      contentType: 'application/x-amz-json-1.0',
      body: { taskToken: TOKEN },
    });
    expect(JSON.parse(wire.calls[0]!.body.output as string)).toEqual({
      runId: 'run_1',
      decidedApprovalId: 'apr_1',
    });
  });

  it('sends SendTaskFailure with the error name and cause', async () => {
    const answer = await port().sendFailure(TOKEN, 'ApprovalWithdrawn', 'the run was cancelled');

    expect(answer).toBe('sent');
    expect(wire.calls[0]).toMatchObject({
      target: 'AWSStepFunctions.SendTaskFailure',
      body: { taskToken: TOKEN, error: 'ApprovalWithdrawn', cause: 'the run was cancelled' },
    });
  });

  it.each(['TaskTimedOut', 'InvalidToken', 'TaskDoesNotExist'])(
    'answers already_closed on %s, without retrying',
    async (code) => {
      wire.replies.push(sfnError(code));

      const success = await port().sendSuccess(TOKEN, { runId: 'run_1' });
      wire.replies.push(sfnError(code));
      const failure = await port().sendFailure(TOKEN, 'E', 'c');

      expect([success, failure]).toEqual(['already_closed', 'already_closed']);
      expect(wire.calls).toHaveLength(2);
    },
  );

  it('retries 5xx and throttling with growing backoff, then sends', async () => {
    const sleeps: number[] = [];
    wire.replies.push(
      sfnError('ServiceUnavailable', 503),
      sfnError('ThrottlingException', 400),
      sfnError('InternalFailure', 500),
    );

    const answer = await port(sleeps).sendSuccess(TOKEN, { runId: 'run_1' });

    expect(answer).toBe('sent');
    expect(wire.calls).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
    expect(sleeps[0]).toBeGreaterThanOrEqual(100);
    expect(sleeps[0]).toBeLessThan(150);
    expect(sleeps[1]).toBeGreaterThanOrEqual(200);
    expect(sleeps[2]).toBeGreaterThanOrEqual(400);
  });

  it('throws after 3 retries, naming the error but never the token', async () => {
    for (let i = 0; i < 4; i++) wire.replies.push(sfnError('ThrottlingException', 400));

    const error = await port()
      .sendSuccess(TOKEN, { runId: 'run_1' })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TaskTokenSendError);
    expect(error).toMatchObject({
      errorName: 'ThrottlingException',
      attempts: 4,
      operation: 'SendTaskSuccess',
    });
    expect(String((error as Error).message)).not.toContain(TOKEN);
    expect(wire.calls).toHaveLength(4);
  });

  it.each(['ValidationException', 'InvalidOutput', 'AccessDeniedException'])(
    'does not retry a client error (%s): it throws at once',
    async (code) => {
      wire.replies.push(sfnError(code));

      await expect(port().sendSuccess(TOKEN, { runId: 'run_1' })).rejects.toMatchObject({
        name: 'TaskTokenSendError',
        errorName: code,
        httpStatus: 400,
        attempts: 1,
      });
      expect(wire.calls).toHaveLength(1);
    },
  );

  it('retries when nothing answers (connection refused), then throws', async () => {
    const down = await startSfnWire();
    await down.close();
    const { SFNClient } = await import('@aws-sdk/client-sfn');
    const client = new SFNClient({
      endpoint: down.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    });
    const sleeps: number[] = [];

    const error = await sfnTaskTokens(client, { sleep: async (ms) => void sleeps.push(ms) })
      .sendSuccess(TOKEN, {})
      .catch((e: unknown) => e);
    client.destroy();

    expect(error).toBeInstanceOf(TaskTokenSendError);
    expect(sleeps).toHaveLength(3);
  });
});
