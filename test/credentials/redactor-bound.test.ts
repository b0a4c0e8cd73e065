/**
 * The per-owner redactors are bounded without ever redacting with a set that lacks a value still in use: a
 * value is held for 15 minutes after it was last handed out (Lambda's longest invocation), an owner none of
 * whose values is held is forgotten, and a new owner beyond the cap is refused rather than evicting an owner
 * whose run may be in flight.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import type { SecretsPort } from '../../shared/core/ports.ts';
import { fileSecrets } from '../../shared/credentials/file-secrets.ts';
import { OwnerRedactors, REDACTION_HOLD_MS } from '../../shared/credentials/owner-redactors.ts';
import { REDACTED } from '../../shared/credentials/redactor.ts';
import { secretsManagerSecrets } from '../../shared/credentials/secrets-manager.ts';
import { FixedClock } from '../support/store.ts';

const MINUTE = 60_000;
const secretOf = (owner: string) => `${owner}-token-Vq83+Lm/2Zx=Pw61`;
const ref = (owner: string) => ({ owner, secret: `wf/${owner}/token` });
const OWNERS = ['alice', 'bob', 'carol'];
const STORED = Object.fromEntries(OWNERS.map((owner) => [`wf/${owner}/token`, secretOf(owner)]));

function fromFile(clock: FixedClock): SecretsPort {
  const path = join(mkdtempSync(join(tmpdir(), 'wf-redactor-bound-')), 'secrets.json');
  writeFileSync(path, JSON.stringify(STORED));
  return fileSecrets(path, { nowMs: () => clock.nowMs() });
}

function fromSecretsManager(clock: FixedClock): SecretsPort {
  const client = {
    send: async (command: unknown) => ({
      SecretString: STORED[(command as GetSecretValueCommand).input.SecretId ?? ''],
    }),
  };
  return secretsManagerSecrets({
    clientFor: async () => client as never,
    namePrefix: 'wf/',
    nowMs: () => clock.nowMs(),
  });
}

describe.each([
  ['fileSecrets', fromFile],
  ['secretsManagerSecrets', fromSecretsManager],
])('%s: redaction held while a value may be in use, then forgotten', (_name, build) => {
  it('still redacts a value past the 5-minute cache TTL (a Turn redacts up to 10 minutes after resolving)', async () => {
    // Prepare
    const clock = new FixedClock();
    const secrets = build(clock);
    await secrets.resolve(ref('alice'));

    // Act
    clock.advance(REDACTION_HOLD_MS - 1);

    // Assess
    expect(secrets.redact('alice', secretOf('alice'))).toBe(REDACTED);
  });

  it('forgets a value 15 minutes after its last hand-out; a cached hand-out counts as one', async () => {
    // Prepare: handed out at 0 and (from the cache or the file) again at 10 minutes.
    const clock = new FixedClock();
    const secrets = build(clock);
    await secrets.resolve(ref('alice'));
    clock.advance(10 * MINUTE);
    await secrets.resolve(ref('alice'));

    // Act
    clock.advance(REDACTION_HOLD_MS - 1);
    const held = secrets.redact('alice', secretOf('alice'));
    clock.advance(1);
    const forgotten = secrets.redact('alice', secretOf('alice'));

    // Assess: what a fresh container knows; the next run resolves before it redacts, as there.
    expect(held).toBe(REDACTED);
    expect(forgotten).toBe(secretOf('alice'));
  });
});

describe('Class: OwnerRedactors', () => {
  it('holds only the owners served within the hold, however many it has seen', () => {
    // Prepare
    const clock = new FixedClock();
    const redactors = new OwnerRedactors({ nowMs: () => clock.nowMs() });
    for (let i = 0; i < 50; i += 1) redactors.add(ref(`owner-${i}`), secretOf(`owner-${i}`));

    // Act
    clock.advance(REDACTION_HOLD_MS);
    redactors.add(ref('alice'), secretOf('alice'));

    // Assess
    expect(redactors.owners).toBe(1);
  });

  it("refuses a new owner at the cap and keeps every held owner's values (no eviction in flight)", () => {
    // Prepare: two owners held, both possibly in flight.
    const clock = new FixedClock();
    const redactors = new OwnerRedactors({ maxOwners: 2, nowMs: () => clock.nowMs() });
    redactors.add(ref('alice'), secretOf('alice'));
    clock.advance(MINUTE);
    redactors.add(ref('bob'), secretOf('bob'));

    // Act
    const refused = () => redactors.add(ref('carol'), secretOf('carol'));

    // Assess
    expect(refused).toThrow(/credential 'wf\/carol\/token': not handed out: .* 2 other owners/);
    expect(redactors.redact('alice', secretOf('alice'))).toBe(REDACTED);
    expect(redactors.redact('bob', secretOf('bob'))).toBe(REDACTED);

    // Act: alice's hold ends; carol takes her place, bob stays.
    clock.advance(REDACTION_HOLD_MS - MINUTE);
    redactors.add(ref('carol'), secretOf('carol'));

    // Assess
    expect(redactors.redact('alice', secretOf('alice'))).toBe(secretOf('alice'));
    expect(redactors.redact('bob', secretOf('bob'))).toBe(REDACTED);
    expect(redactors.redact('carol', secretOf('carol'))).toBe(REDACTED);
  });

  it("forgets an owner's rotated-out value while it keeps the new one", () => {
    // Prepare
    const clock = new FixedClock();
    const redactors = new OwnerRedactors({ nowMs: () => clock.nowMs() });
    redactors.add(ref('alice'), 'old-value-00000001');
    clock.advance(10 * MINUTE);
    redactors.add(ref('alice'), 'new-value-00000002');

    // Act
    clock.advance(REDACTION_HOLD_MS - 5 * MINUTE);

    // Assess
    expect(redactors.redact('alice', 'old-value-00000001 new-value-00000002')).toBe(
      `old-value-00000001 ${REDACTED}`,
    );
  });
});

describe('secretsManagerSecrets at the cap', () => {
  it('reads no secret for an owner it could not hold, and refuses the resolve', async () => {
    // Prepare
    const reads: string[] = [];
    const client = {
      send: async (command: unknown) => {
        const id = (command as GetSecretValueCommand).input.SecretId ?? '';
        reads.push(id);
        return { SecretString: `value-of-${id}` };
      },
    };
    const clock = new FixedClock();
    const secrets = secretsManagerSecrets({
      clientFor: async () => client as never,
      namePrefix: 'wf/',
      nowMs: () => clock.nowMs(),
    });
    // One port of the default cap would need 1,000 owners; the file adapter shares the class above.
    for (let i = 0; i < 1000; i += 1) await secrets.resolve(ref(`owner-${i}`));
    reads.length = 0;

    // Act / Assess
    await expect(secrets.resolve(ref('alice'))).rejects.toThrow(/not handed out/);
    expect(reads).toEqual([]);
  });
});
