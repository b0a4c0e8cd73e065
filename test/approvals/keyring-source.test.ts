import { describe, expect, it } from 'vitest';
import {
  cachedKeyring,
  checkWithKeyring,
  type Keyring,
  signApprovalLink,
  verifyApprovalLink,
} from '../../shared/approvals/index.ts';
import { FixedClock } from '../support/store.ts';

const OLD = { kid: 'k1', secret: 'first-signing-key-0000000000000001' };
const NEW = { kid: 'k2', secret: 'second-signing-key-000000000000002' };
const claims = {
  approvalId: 'apr_1',
  approver: 'a@example.com',
  expiresAtMs: 10_000,
  argsHash: 'a'.repeat(64),
};
const verify = (token: string) => (keyring: Keyring) =>
  verifyApprovalLink(token, keyring, { nowMs: 0, approvalId: 'apr_1' });

/** A keyring "secret" the test rotates; counts reads. */
function rotatingKeyring(initial: Keyring, options: { minRefreshIntervalMs?: number } = {}) {
  const clock = new FixedClock();
  const stored = { keyring: initial };
  let reads = 0;
  const source = cachedKeyring(
    async () => {
      reads += 1;
      return JSON.stringify(stored.keyring);
    },
    { maxAgeMs: 60_000, nowMs: () => clock.nowMs(), ...options },
  );
  return { clock, stored, source, reads: () => reads };
}

describe('cachedKeyring', () => {
  it('serves the cached keyring within the TTL and reads it again after', async () => {
    const k = rotatingKeyring({ current: OLD });
    expect((await k.source.get()).current.kid).toBe('k1');
    k.stored.keyring = { current: NEW };
    k.clock.advance(59_999);
    expect((await k.source.get()).current.kid).toBe('k1');
    k.clock.advance(1);
    expect((await k.source.get()).current.kid).toBe('k2');
    expect(k.reads()).toBe(2);
  });

  it('fails closed on a keyring that no longer parses', async () => {
    const k = rotatingKeyring({ current: OLD });
    await k.source.get();
    k.stored.keyring = { current: { kid: 'short', secret: 'too-short' } } as Keyring;
    k.clock.advance(60_000);
    await expect(k.source.get()).rejects.toThrow(/approval keyring is invalid/);
  });
});

describe('checkWithKeyring', () => {
  it('re-reads the keyring once when a link is signed with a key it does not hold yet', async () => {
    const k = rotatingKeyring({ current: OLD });
    await k.source.get();
    k.stored.keyring = { current: NEW, previous: [OLD] };
    k.clock.advance(10_000); // past the re-read rate limit, well within the TTL

    const { result } = await checkWithKeyring(k.source, verify(signApprovalLink(claims, { current: NEW })));

    expect(result.ok).toBe(true);
    expect(k.reads()).toBe(2);
  });

  it('does not re-read for failures a keyring cannot cure (an expired link)', async () => {
    const k = rotatingKeyring({ current: OLD });
    const token = signApprovalLink({ ...claims, expiresAtMs: 0 }, { current: OLD });

    const { result } = await checkWithKeyring(k.source, verify(token));

    expect(result).toEqual({ ok: false, reason: 'expired' });
    expect(k.reads()).toBe(1);
  });

  it('rate-limits re-reads, so a flood of forged links is not a flood of secret reads', async () => {
    const k = rotatingKeyring({ current: OLD }, { minRefreshIntervalMs: 10_000 });
    const forged = signApprovalLink(claims, {
      current: { kid: 'k9', secret: 'forged-key-000000000000000000000009' },
    });

    for (let i = 0; i < 5; i += 1) {
      const { result } = await checkWithKeyring(k.source, verify(forged));
      expect(result).toEqual({ ok: false, reason: 'unknown_key' });
    }

    expect(k.reads()).toBe(1);
  });
});
