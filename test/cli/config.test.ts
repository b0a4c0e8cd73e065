import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { localApiKey } from '../../shared/cli/config.ts';

const dirs: string[] = [];
const dataDirWith = (keys: Record<string, { owner: string; client?: string }>) => {
  const dir = mkdtempSync(join(tmpdir(), 'wf-cli-config-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'api-keys.json'), JSON.stringify({ keys }));
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('Function: localApiKey', () => {
  it("uses the keys file's only owner key, never a jobs client's key listed before it", () => {
    // Prepare
    const dir = dataDirWith({
      'client-key-0123456789': { owner: 'local', client: 'ci-bot' },
      'owner-key-0123456789': { owner: 'local' },
    });

    // Act & Assess
    expect(localApiKey(dir)).toBe('owner-key-0123456789');
  });

  it('refuses to guess when the file holds more than one owner key, naming --api-key and WF_API_KEY', () => {
    // Prepare
    const dir = dataDirWith({
      'alice-key-0123456789': { owner: 'alice' },
      'bob-key-012345678901': { owner: 'bob' },
    });

    // Act & Assess
    expect(() => localApiKey(dir)).toThrow(/2 owner keys \(owners: alice, bob\).*--api-key.*WF_API_KEY/);
  });
});
