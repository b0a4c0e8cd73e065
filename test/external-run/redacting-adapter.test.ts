/**
 * The redacting adapter (shared/external/run/redacting-adapter.ts) redacts every kind of engine answer for the
 * run's owner: observations (an unknown's detail, a wait's detail), cancel facts, the manifest, an artifact's
 * text and an error's message. The credential is resolved first, so an answer that came before any
 * credentialed request in this process is redacted too; another owner's value is left alone.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileSecrets } from '../../shared/credentials/file-secrets.ts';
import type { ExternalAdapter } from '../../shared/external/contract.ts';
import { ExternalRefusedError, ExternalTransportError } from '../../shared/external/errors.ts';
import { redactingAdapter } from '../../shared/external/run/redacting-adapter.ts';
import { FixedClock } from '../support/store.ts';

const ALICE = 'alice-engine-token-7Kq2Xw9Lm3';
const BOB = 'bob-engine-token-4Rt8Zp1Vn6';

function setup(options: { maxRedactionOwners?: number } = {}) {
  const path = join(mkdtempSync(join(tmpdir(), 'wf-redacting-adapter-')), 'secrets.json');
  writeFileSync(path, JSON.stringify({ 'wf/alice/engine': ALICE, 'wf/bob/engine': BOB }));
  const secrets = fileSecrets(path, options);
  const echo = (text: string) => `${text} ${ALICE} ${BOB}`;
  const bytes = new TextEncoder().encode(echo('artifact'));
  const engine: ExternalAdapter = {
    engine: 'echo',
    start: async () => {
      throw new ExternalRefusedError('echo', 'k', echo('bad token'), { status: 401 });
    },
    observe: async () => ({ observedAtMs: 1, state: 'unknown', cause: 'engine_error', detail: echo('boom') }),
    cancel: async () => ({ requested: true, acknowledged: false, stopped: false, detail: echo('no') }),
    listArtifacts: async () => [{ path: echo('p'), size: 1, sha256: 'ab' }],
    openArtifact: async () => ({
      entry: { path: 'result.json', size: bytes.byteLength, sha256: 'ab' },
      bytes,
      stream: () => new Blob([bytes]).stream(),
    }),
  };
  const credential = { owner: 'alice', secret: 'wf/alice/engine' };
  return {
    secrets,
    adapter: redactingAdapter(engine, { owner: 'alice', credential, secrets, clock: new FixedClock() }),
  };
}

const expected = (text: string) => `${text} [REDACTED] ${BOB}`;

describe('redactingAdapter', () => {
  it("redacts the owner's credential in every answer, and nothing of another owner's", async () => {
    const { adapter } = setup();
    // Nothing resolved the credential before: the wrapper does.
    expect(await adapter.observe('k', 'i')).toMatchObject({ detail: expected('boom') });
    expect(await adapter.cancel('k', 'i')).toMatchObject({ detail: expected('no') });
    expect(await adapter.listArtifacts('k', 'i')).toEqual([{ path: expected('p'), size: 1, sha256: 'ab' }]);
    const artifact = await adapter.openArtifact('k', 'i', 'result.json');
    expect(new TextDecoder().decode(artifact.bytes)).toBe(expected('artifact'));
    expect(await new Response(artifact.stream()).text()).toBe(expected('artifact'));
    expect(artifact.entry.sha256).toBe('ab');
    const refused = await adapter.start('k', {}).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ExternalRefusedError);
    expect((refused as Error).message).toBe(`echo: refused: ${expected('bad token')}`);
  });

  it("uses no answer while the owner's credential cannot be resolved (the port's owner cap refuses alice)", async () => {
    // Prepare: the port holds one owner, bob, so alice's credential is refused.
    const { adapter, secrets } = setup({ maxRedactionOwners: 1 });
    await secrets.resolve({ owner: 'bob', secret: 'wf/bob/engine' });

    // Act
    const observed = await adapter.observe('k', 'i');
    const answers = await Promise.all([
      adapter.start('k', {}).catch((error: unknown) => error),
      adapter.cancel('k', 'i').catch((error: unknown) => error),
      adapter.listArtifacts('k', 'i').catch((error: unknown) => error),
      adapter.openArtifact('k', 'i', 'result.json').catch((error: unknown) => error),
    ]);

    // Assess: an unknown observation (the run keeps polling), retryable errors, and alice's value nowhere.
    expect(observed).toMatchObject({ state: 'unknown', cause: 'transport' });
    for (const answer of answers) expect(answer).toBeInstanceOf(ExternalTransportError);
    expect(JSON.stringify([observed, ...answers.map((error) => (error as Error).message)])).not.toContain(
      ALICE,
    );
  });
});
