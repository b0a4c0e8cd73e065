import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CredentialError } from '../../shared/credentials/errors.ts';
import { fileSecrets } from '../../shared/credentials/file-secrets.ts';
import { FixedClock } from '../support/store.ts';

function secretsFile(values: Record<string, unknown>) {
  const path = join(mkdtempSync(join(tmpdir(), 'wf-file-secrets-')), 'secrets.json');
  const write = (next: Record<string, unknown>) => writeFileSync(path, JSON.stringify(next));
  write(values);
  return { path, write };
}

describe('fileSecrets', () => {
  describe('owner scope', () => {
    const file = secretsFile({
      'wf/alice/token': 'alice-token-value-0001',
      'wf/bob/token': 'bob-token-value-0002',
      'wf/auth0=7Cabc/token': 'auth0-token-value-0003',
      'wf/token': 'unscoped-token-value-0004',
    });
    const secrets = fileSecrets(file.path);

    it("resolves an owner's own secret", async () => {
      expect(await secrets.resolve({ owner: 'alice', secret: 'wf/alice/token' })).toBe(
        'alice-token-value-0001',
      );
      expect(await secrets.resolve({ owner: 'auth0|abc', secret: 'wf/auth0=7Cabc/token' })).toBe(
        'auth0-token-value-0003',
      );
    });

    it.each([
      ['wf/bob/token', "another owner's secret"],
      ['wf/token', 'an unscoped secret'],
      ['wf/alice-x/token', 'a look-alike prefix'],
    ])('refuses %s (%s), naming the expected prefix and no value', async (secret) => {
      const error = await secrets.resolve({ owner: 'alice', secret }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CredentialError);
      expect((error as Error).message).toContain("must be named 'wf/alice/<name>'");
      expect((error as Error).message).not.toMatch(/token-value/);
    });

    it('refuses a reference without an owner (fail closed)', async () => {
      await expect(
        secrets.resolve({ owner: '', secret: 'wf/alice/token' } as { owner: string; secret: string }),
      ).rejects.toThrow(/without an owner/);
    });
  });

  describe('rotation', () => {
    it('serves a read of the file until the TTL has passed, then reads it again', async () => {
      // Prepare
      const clock = new FixedClock();
      const file = secretsFile({ 'wf/alice/token': 'first-value-00000001' });
      const secrets = fileSecrets(file.path, { maxAgeMs: 60_000, nowMs: () => clock.nowMs() });
      expect(await secrets.resolve({ owner: 'alice', secret: 'wf/alice/token' })).toBe(
        'first-value-00000001',
      );

      // Act: rotate the value in the file
      file.write({ 'wf/alice/token': 'second-value-0000002' });

      // Assess: the cached read within the TTL, the new value after it
      clock.advance(59_999);
      expect(await secrets.resolve({ owner: 'alice', secret: 'wf/alice/token' })).toBe(
        'first-value-00000001',
      );
      clock.advance(1);
      expect(await secrets.resolve({ owner: 'alice', secret: 'wf/alice/token' })).toBe(
        'second-value-0000002',
      );
    });

    it('finds a secret added after the last read at once, and no longer finds a removed one', async () => {
      const clock = new FixedClock();
      const file = secretsFile({ 'wf/alice/a': 'value-a-000000001' });
      const secrets = fileSecrets(file.path, { maxAgeMs: 60_000, nowMs: () => clock.nowMs() });
      await secrets.resolve({ owner: 'alice', secret: 'wf/alice/a' });

      file.write({ 'wf/alice/b': 'value-b-000000002' });

      expect(await secrets.resolve({ owner: 'alice', secret: 'wf/alice/b' })).toBe('value-b-000000002');
      clock.advance(60_000);
      await expect(secrets.resolve({ owner: 'alice', secret: 'wf/alice/a' })).rejects.toThrow(
        CredentialError,
      );
    });
  });
});
