/**
 * The Turn function composes its dependencies once per container (shared/runtime/aws/turn.ts), not on every
 * invocation: the action catalog and its tool schemas were built again on every turn (issue #16).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { turnDeps } from '../../shared/runtime/aws/turn.ts';

afterEach(() => {
  vi.unstubAllEnvs();
});

/** The environment Lambda and the CDK give the turn function (Bedrock: no key to read at composition). */
function stubTurnEnv() {
  vi.stubEnv('WF_TABLE_NAME', 'wf-unused');
  vi.stubEnv('WF_MODEL_PROVIDER', 'bedrock');
  vi.stubEnv('AWS_REGION', 'eu-central-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDLAMBDAROLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'role-secret');
  vi.stubEnv('AWS_SESSION_TOKEN', 'role-session');
  vi.stubEnv('ANTHROPIC_BEDROCK_BASE_URL', 'http://127.0.0.1:9');
}

describe('Function: turnDeps', () => {
  it('is tried again after a composition that failed, then kept for every later invocation', async () => {
    // Prepare: no model configured yet (no provider, no key): the composition fails.
    vi.stubEnv('WF_TABLE_NAME', 'wf-unused');
    vi.stubEnv('WF_MODEL_PROVIDER', '');
    vi.stubEnv('WF_ANTHROPIC_SECRET_ARN', '');
    await expect(turnDeps()).rejects.toThrow();

    // Act: the next invocations, with the model configured.
    stubTurnEnv();
    const first = await turnDeps();
    const second = await turnDeps();

    // Assess: one composition serves both: the same catalog, so the same tool specs and schemas.
    expect(second).toBe(first);
    expect(second.actions).toBe(first.actions);
    expect(second.store).toBe(first.store);
  });
});
