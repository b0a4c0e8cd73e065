/**
 * Rotating the approval signing keyring while the local stack runs: the stack re-reads keyring.json after
 * its TTL (the same cache the Lambda functions use on AWS, over the file instead of Secrets Manager), and at
 * once when a link signed with a key it does not hold yet arrives. The stack's clock is injected, so "after
 * the TTL" is a clock step, not a sleep.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Keyring, signApprovalLink } from '../../shared/approvals/index.ts';
import { FixedClock } from '../support/store.ts';
import { createOwnTable, type E2eStack, removeDir, startE2eStack, tempDataDir } from './support.ts';

const TTL_MS = 60_000;
const clock = new FixedClock();
const OLD = { kid: 'old-1', secret: 'old-signing-key-for-the-rotation-test-0001' };
const NEW = { kid: 'new-2', secret: 'new-signing-key-for-the-rotation-test-0002' };
const APPROVAL_ID = `apr_${'0'.repeat(32)}`;

let e2e: E2eStack;
let dataDir: string;

const writeKeyring = (keyring: Keyring) =>
  writeFileSync(join(dataDir, 'keyring.json'), JSON.stringify(keyring), { mode: 0o600 });

/** The approval page's status for a link signed with `key`: 403 is "not a valid link". */
async function pageStatus(key: { kid: string; secret: string }): Promise<number> {
  const token = signApprovalLink(
    {
      approvalId: APPROVAL_ID,
      approver: 'ops@example.com',
      expiresAtMs: clock.ms + 3_600_000,
      argsHash: 'a'.repeat(64),
    },
    { current: key },
  );
  const response = await fetch(`${e2e.stack.url}/approvals/${APPROVAL_ID}?t=${encodeURIComponent(token)}`);
  await response.arrayBuffer();
  return response.status;
}

beforeAll(async () => {
  dataDir = await tempDataDir();
  mkdirSync(dataDir, { recursive: true });
  writeKeyring({ current: OLD });
  e2e = await startE2eStack(await createOwnTable(), { dataDir, clock, secretsMaxAgeMs: TTL_MS });
});

afterAll(async () => {
  await e2e?.stack.stop();
  await removeDir(dataDir);
});

describe('approval keyring rotation on a running local stack', () => {
  it('verifies links of a newly added key at once and stops verifying a dropped key after the TTL', async () => {
    // Prepare: links signed with the current key pass the signature check (the approval itself is unknown).
    const valid = await pageStatus(OLD);
    expect(valid).not.toBe(403);
    expect(await pageStatus(NEW)).toBe(403);

    // Act 1: rotate in a new current key, keeping the old one as previous.
    writeKeyring({ current: NEW, previous: [OLD] });

    // Assess 1: a link with the new key verifies before any TTL passed (a failed check re-reads the file once).
    expect(await pageStatus(NEW)).toBe(valid);
    expect(await pageStatus(OLD)).toBe(valid);

    // Act 2: drop the old key.
    writeKeyring({ current: NEW });

    // Assess 2: within the TTL the cached keyring still holds it; once the TTL has passed, it is refused.
    expect(await pageStatus(OLD)).toBe(valid);
    clock.advance(TTL_MS);
    expect(await pageStatus(OLD)).toBe(403);
    expect(await pageStatus(NEW)).toBe(valid);
  });
});
