/**
 * Fail closed when a credential the model's answer must be redacted of cannot be resolved: here the secrets
 * port's per-container cap (owner-redactors.ts) refuses the run's owner, because it holds another owner's
 * values. The model is not called and no answer is stored; the Turn, retried once the cap frees a place, runs
 * and stores the answer redacted. (Before: the refusal was swallowed, and an answer repeating the owner's
 * credential was stored as it was.)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CredentialUnavailableError } from '../../shared/core/errors.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { fileSecrets } from '../../shared/credentials/file-secrets.ts';
import { REDACTION_HOLD_MS } from '../../shared/credentials/owner-redactors.ts';
import { REDACTED } from '../../shared/credentials/redactor.ts';
import { engineDeps, ScriptedModel, text } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const SECRET = 'wfsecret-CapRefused-Tn5+Wq/61Xe=Kd28';
const store = testStore();

describe('model answer redaction when the credential is refused', () => {
  it('calls no model and stores nothing while the cap refuses the owner, then redacts on the retry', async () => {
    // Prepare: a port holding one owner at most, already holding another owner's values.
    const path = join(mkdtempSync(join(tmpdir(), 'wf-redaction-refused-')), 'secrets.json');
    writeFileSync(path, JSON.stringify({ 'wf/owner-busy/token': 'busy', 'wf/owner-capped/token': SECRET }));
    const secretsClock = new FixedClock();
    const secrets = fileSecrets(path, { maxRedactionOwners: 1, nowMs: () => secretsClock.nowMs() });
    await secrets.resolve({ owner: 'owner-busy', secret: 'wf/owner-busy/token' });
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({ credRefs: { token: { secret: 'wf/owner-capped/token' } } }),
      { owner: 'owner-capped' },
    );
    const run = await seedRun(store, version);
    const model = new ScriptedModel([{ content: [text(`The token is ${SECRET}.`)], stopReason: 'end_turn' }]);
    const deps = engineDeps(store, model, { secrets });
    const pointer = { runId: run.runId, turn: 0, segmentStartTurn: 0 };

    // Act
    const refused = runTurn(deps, pointer);

    // Assess
    await expect(refused).rejects.toBeInstanceOf(CredentialUnavailableError);
    await expect(refused).rejects.toThrow(/credential 'token' could not be loaded/);
    expect(model.requests).toHaveLength(0);
    const kept = await store.listMessages(run.runId);
    expect(kept.filter((message) => message.role === 'assistant')).toEqual([]);
    expect(JSON.stringify(kept)).not.toContain(SECRET);

    // Act: the engine retrier runs the Turn again once the other owner's hold has ended.
    secretsClock.advance(REDACTION_HOLD_MS + 1);
    const outcome = await runTurn(deps, pointer);

    // Assess
    expect(outcome.next).toBe('done');
    const stored = JSON.stringify(await store.listMessages(run.runId));
    expect(stored).not.toContain(SECRET);
    expect(stored).toContain(`The token is ${REDACTED}.`);
  });
});
