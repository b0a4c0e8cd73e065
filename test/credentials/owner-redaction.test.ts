/**
 * Redaction is per owner: one warm secrets port (a Turn container serving many owners) redacts, for each
 * owner, only the values resolved for that owner. Another owner's text carrying the same string is neither
 * redacted (interference) nor, through the credential-in-request check, refused (an oracle for guesses).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { CREDENTIAL_IN_REQUEST, credentialProblem } from '../../shared/actions/credential-check.ts';
import type { SecretsPort } from '../../shared/core/ports.ts';
import { fileSecrets } from '../../shared/credentials/file-secrets.ts';
import { REDACTED } from '../../shared/credentials/redactor.ts';
import { secretsManagerSecrets } from '../../shared/credentials/secrets-manager.ts';
import { definitionWith } from '../actions/support.ts';

const ALICE_SECRET = 'alice-token-Vq83+Lm/2Zx=Pw61';
const STORED = { 'wf/alice/token': ALICE_SECRET, 'wf/bob/token': 'bob-token-Hk27+Ry/5Tn=Qc09' };

function fromFile(): SecretsPort {
  const path = join(mkdtempSync(join(tmpdir(), 'wf-owner-redaction-')), 'secrets.json');
  writeFileSync(path, JSON.stringify(STORED));
  return fileSecrets(path);
}

function fromSecretsManager(): SecretsPort {
  const values: Record<string, string> = STORED;
  const client = {
    send: async (command: unknown) => ({
      SecretString: values[(command as GetSecretValueCommand).input.SecretId ?? ''],
    }),
  };
  return secretsManagerSecrets({ clientFor: async () => client as never, namePrefix: 'wf/' });
}

describe.each([
  ['fileSecrets', fromFile],
  ['secretsManagerSecrets', fromSecretsManager],
])('%s: redaction per owner', (_name, build) => {
  it("redacts alice's value in alice's text only, never in bob's", async () => {
    // Prepare: a warm port that has resolved alice's secret (and bob's own, to show his is separate).
    const secrets = build();
    await secrets.resolve({ owner: 'alice', secret: 'wf/alice/token' });
    await secrets.resolve({ owner: 'bob', secret: 'wf/bob/token' });
    const text = `fetched: ${ALICE_SECRET} and ${Buffer.from(ALICE_SECRET).toString('base64')}`;

    // Act
    const forAlice = secrets.redact('alice', text);
    const forBob = secrets.redact('bob', text);
    const forCarol = secrets.redact('carol', text);

    // Assess
    expect(forAlice).toBe(`fetched: ${REDACTED} and ${REDACTED}`);
    expect(forBob).toBe(text);
    expect(forCarol).toBe(text);
  });

  it("refuses alice's value in alice's request and lets bob's request with the same string through", async () => {
    // Prepare: alice's run resolved her credential; bob's workflow declares none.
    const secrets = build();
    const aliceWorkflow = definitionWith({ credRefs: { api: { secret: 'wf/alice/token' } } });
    const bobWorkflow = definitionWith({});
    const url = `https://api.example.com/?guess=${encodeURIComponent(ALICE_SECRET)}`;

    // Act
    const forAlice = await credentialProblem({ secrets, scope: { owner: 'alice' } }, aliceWorkflow, [url]);
    const forBob = await credentialProblem({ secrets, scope: { owner: 'bob' } }, bobWorkflow, [url]);

    // Assess
    expect(forAlice).toBe(CREDENTIAL_IN_REQUEST);
    expect(forBob).toBeUndefined();
  });
});
