/** `wf audit verify --owner` against a local stack: the chains and the signed heads, checked by the CLI itself. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OwnerChange, sealOwnerChange } from '../../shared/audit/index.ts';
import { ensureLocalSigningKey } from '../../shared/audit-signing/index.ts';
import { keys } from '../../shared/store/index.ts';
import { type CliStack, startCliStack, wf } from './support.ts';
import { ALL_FIXTURES, NOTES_WORKFLOW } from './workflows.ts';

let cli: CliStack;

beforeAll(async () => {
  cli = await startCliStack(ALL_FIXTURES);
});

afterAll(async () => {
  await cli?.stop();
});

describe('wf audit verify --owner', () => {
  it('verifies the chains and checks the signed heads with the local public key file', async () => {
    // Prepare
    await cli.wf(['workflow', 'apply', '-f', cli.file('audit-notes.workflow.yaml', NOTES_WORKFLOW)]);
    // Act
    const result = await cli.wf(['audit', 'verify', '--owner', '--data-dir', cli.dataDir]);
    const foreignKey = ensureLocalSigningKey(mkdtempSync(join(tmpdir(), 'wf-other-key-'))).publicKey;
    const foreign = await cli.wf(['audit', 'verify', '--owner', '--public-key', foreignKey]);
    // The data directory from WF_DATA_DIR, as for the API key.
    const fromEnv = await wf(
      ['audit', 'verify', '--owner', '--url', cli.stack.url, '--api-key', cli.stack.apiKey],
      { WF_DATA_DIR: cli.dataDir },
    );
    // Assess
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.lines).toContain('workflow changes: verified, 1 entries');
    expect(result.stdout).toMatch(/signed heads: 1 valid; newest signed .* by local:[0-9a-f]{16} /);
    expect(result.stdout).toContain(
      `signatures checked here with ${join(cli.dataDir, 'audit-signing-key.pub.pem')}`,
    );
    expect(fromEnv).toMatchObject({ code: 0, stderr: '' });
    expect(fromEnv.stdout).toContain(
      `signatures checked here with ${join(cli.dataDir, 'audit-signing-key.pub.pem')}`,
    );
    expect(foreign.code).toBe(4);
    expect(foreign.stdout).toContain('signed heads: BROKEN');
  });

  it('exits 4 when the table was rewritten consistently after signing', async () => {
    // Prepare: change the author of the owner's first change and re-seal it and the head.
    const owner = cli.stack.owner;
    const { doc, table } = cli.stack.store.ctx;
    const [first] = (await cli.stack.store.listOwnerChangeItems(owner)) as OwnerChange[];
    const { hash: _h, prevHash: _p, seq: _s, schemaVersion: _v, ...input } = first!;
    const forged = sealOwnerChange(undefined, { ...input, author: 'mallory' });
    await doc.send(new PutCommand({ TableName: table, Item: { ...keys.ownerChange(owner, 0), ...forged } }));
    await doc.send(
      new PutCommand({ TableName: table, Item: { ...keys.ownerChangeHead(owner), change: forged } }),
    );
    // Act
    const result = await cli.wf(['audit', 'verify', '--owner', '--data-dir', cli.dataDir]);
    // Assess
    expect(result.code).toBe(4);
    expect(result.lines).toContain('workflow changes: verified, 1 entries');
    expect(result.stdout).toMatch(/signed heads: BROKEN — signed head 0: the change chain's entry 0 differs/);
  });
});
