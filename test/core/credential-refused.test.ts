/**
 * A credential of the workflow that can never be read (no such secret, access denied, a name outside the owner's
 * namespace) ends the run on the first Turn, failed, naming the slot, without calling the model: before, the Turn
 * threw the retryable CredentialUnavailableError and the state machine retried it 6 times, then failed it with a
 * generic error. A throttled read stays retryable.
 * (Deliver: test/core/deliver-redaction.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { CredentialUnavailableError } from '../../shared/core/errors.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { TRANSIENT_ERRORS } from '../../shared/jobs/retry.ts';
import { answeringSecrets } from '../support/answering-secrets.ts';
import { engineDeps, ScriptedModel, text } from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore, uniqueOwner } from '../support/store.ts';

const store = testStore();
const VALUE = 'wfsecret-Refused-Hq4+Zt/83Mw=Pe19';

async function turnWith(answer: { value: string } | { error: string }, secretName = 'token') {
  const owner = uniqueOwner();
  const secret = secretName === 'token' ? `wf/${owner}/token` : secretName;
  const { version } = await seedWorkflow(store, minimalWorkflow({ credRefs: { token: { secret } } }), {
    owner,
  });
  const run = await seedRun(store, version);
  const model = new ScriptedModel([{ content: [text('Done.')], stopReason: 'end_turn' }]);
  const deps = engineDeps(store, model, { secrets: answeringSecrets({ [secret]: answer }) });
  const outcome = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 }).catch(
    (error: unknown) => error,
  );
  return { outcome, model, run: await store.getRun(run.runId) };
}

describe('a credential that can never be read', () => {
  it.each([
    ['not found', { error: 'ResourceNotFoundException' }, 'token'],
    ['access denied', { error: 'AccessDeniedException' }, 'token'],
    ['outside the owner namespace', { value: VALUE }, 'wf/someone-else/token'],
  ])('%s: fails the run on the first Turn naming the slot, no model call', async (_case, answer, name) => {
    const { outcome, model, run } = await turnWith(answer, name);

    expect(outcome).toMatchObject({ next: 'failed' });
    expect(model.requests).toHaveLength(0);
    expect(run).toMatchObject({
      status: 'failed',
      stopReason: 'error',
      error: { name: 'CredentialRefusedError', message: expect.stringContaining("credential 'token'") },
    });
    expect(JSON.stringify(run)).not.toContain(VALUE);
    // Final for delegated jobs too: the retry policy does not list it.
    expect(TRANSIENT_ERRORS).not.toContain(run?.error?.name);
  });

  it('a throttled read stays retryable: the Turn throws CredentialUnavailableError, the run is not ended', async () => {
    const { outcome, model, run } = await turnWith({ error: 'ThrottlingException' });

    expect(outcome).toBeInstanceOf(CredentialUnavailableError);
    expect(model.requests).toHaveLength(0);
    expect(['pending', 'running']).toContain(run?.status);
  });
});
