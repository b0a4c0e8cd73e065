import { describe, expect, it } from 'vitest';
import { TaskTokens } from '../../../shared/local/sfn/tokens.ts';

const wait = { executionArn: 'arn:exec:a', stateName: 'RequestApproval' };

describe('TaskTokens', () => {
  it('mints a distinct opaque token per wait and resolves the wait with the success output', async () => {
    // Prepare
    const tokens = new TaskTokens();
    const first = tokens.open(wait);
    const second = tokens.open(wait);

    // Act
    tokens.succeed(first.token, { approved: true });

    // Assess
    expect(first.token).not.toBe(second.token);
    expect(first.token).toMatch(/^lsfn1\.[\w-]{8}\.[\w-]{43}$/);
    await expect(first.result).resolves.toEqual({ approved: true });
    expect(tokens.isOpen(second.token)).toBe(true);
  });

  it('rejects the wait with the SendTaskFailure error as its name and cause as its message', async () => {
    // Prepare
    const tokens = new TaskTokens();
    const { token, result } = tokens.open(wait);

    // Act
    tokens.fail(token, 'ApprovalRejected', 'no');

    // Assess
    await expect(result).rejects.toMatchObject({ name: 'ApprovalRejected', message: 'no' });
  });

  it.each([
    ['an answered token', 'TaskTimedOut'],
    ['a token minted by another instance', 'TaskTimedOut'],
    ['a string that is no token', 'InvalidToken'],
  ])('answers %s with %s', (_case, code) => {
    // Prepare
    const tokens = new TaskTokens();
    const answered = tokens.open(wait).token;
    tokens.succeed(answered, {});
    const foreign = new TaskTokens().open(wait).token;
    const token =
      { 'an answered token': answered, 'a token minted by another instance': foreign }[_case] ?? 'garbage';

    // Act
    const act = () => tokens.succeed(token, {});

    // Assess
    expect(act).toThrow(expect.objectContaining({ name: code }));
  });

  it('times the wait out with States.Timeout and closes its token', async () => {
    // Prepare
    const tokens = new TaskTokens();
    const { token, result } = tokens.open({ ...wait, timeoutMs: 20 });

    // Act
    const outcome = await result.catch((error: Error) => error);

    // Assess
    expect(outcome).toMatchObject({ name: 'States.Timeout' });
    expect(() => tokens.heartbeat(token)).toThrow(expect.objectContaining({ name: 'TaskTimedOut' }));
  });

  it('keeps a wait with heartbeats alive and times it out with States.HeartbeatTimeout when they stop', async () => {
    // Prepare
    const tokens = new TaskTokens();
    const { token, result } = tokens.open({ ...wait, heartbeatMs: 60 });
    const startedAt = Date.now();

    // Act
    for (let beat = 0; beat < 4; beat++) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      tokens.heartbeat(token);
    }
    const outcome = await result.catch((error: Error) => error);

    // Assess
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(170);
    expect(outcome).toMatchObject({ name: 'States.HeartbeatTimeout' });
  });

  it('closes the waits of one execution only', async () => {
    // Prepare
    const tokens = new TaskTokens();
    const a = tokens.open(wait);
    const b = tokens.open({ ...wait, executionArn: 'arn:exec:b' });

    // Act
    tokens.closeExecution('arn:exec:a', new Error('stopped'));

    // Assess
    await expect(a.result).rejects.toThrow('stopped');
    expect(tokens.openWaits().map((open) => open.token)).toEqual([b.token]);
  });
});
