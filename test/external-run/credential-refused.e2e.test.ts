/**
 * The run's engine credential can no longer be read as it is named (the secret was deleted while the
 * execution runs): the next observe is a final refusal naming it, so the run fails at once through
 * AbandonExternal (the engine asked to cancel) instead of answering unknown until `unknownDeadlineSeconds`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerSecretPrefix } from '../../shared/credentials/owner-key.ts';
import { eventually, getRun } from '../e2e/support.ts';
import {
  applyExternal,
  type ExternalStack,
  externalEvents,
  externalRunEnded,
  externalWorkflow,
  startExternalRun,
  startExternalStack,
} from './support.ts';

const SECRET = `${ownerSecretPrefix('wf/', 'local')}engine-token`;

describe('an engine credential deleted while its execution runs', () => {
  let h: ExternalStack;
  let secretsFile: string;
  const writeSecret = (value: string | undefined) => {
    const stored = JSON.parse(readFileSync(secretsFile, 'utf8')) as Record<string, unknown>;
    if (value === undefined) delete stored[SECRET];
    else stored[SECRET] = value;
    writeFileSync(secretsFile, JSON.stringify(stored));
  };
  beforeAll(async () => {
    h = await startExternalStack({ secretsMaxAgeMs: 0 });
    secretsFile = join(h.dataDir, 'secrets.json');
    writeSecret('engine-token-0c4f2a9e');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('fails the run at once, naming the refusal, through the abandon path', async () => {
    h.engine.script('*', { running: 100_000 });
    const yaml = externalWorkflow(
      'nightly-cred',
      'live',
      `credential: token\ncredRefs: { token: { secret: ${SECRET} } }\n`,
    );
    const runId = await startExternalRun(h, await applyExternal(h, 'nightly-cred', yaml));
    await eventually('the engine to admit the run', async () =>
      (await getRun(h, runId)).external?.incarnation ? true : undefined,
    );

    writeSecret(undefined);
    const run = await externalRunEnded(h, runId);

    expect(run).toMatchObject({ status: 'failed', stopReason: 'error' });
    expect(run.error?.name).toBe('ExternalRefusedError');
    expect(run.error?.message).toContain(`credential ${SECRET} cannot be read`);
    expect(run.error?.message).toContain('it may still run');
    // The cancel needs the same credential, so it never left: recorded as not requested, never as asked.
    expect(run.error?.message).toContain('could not be asked to cancel');
    expect(run.external?.cancel).toMatchObject({ requested: false, acknowledged: false, stopped: false });
    expect(h.engine.count('abort')).toBe(0);
    expect(run.external?.unknownSince).toBeUndefined();
    expect((await externalEvents(h, runId)).map((event) => event.event)).toContain('abandoned');
  });
});
