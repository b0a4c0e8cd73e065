/**
 * `wf audit verify --owner` against a deployed stack chosen by `WF_AUTH=aws` (which stands for `--aws`,
 * docs/cli.md): the signed heads are never checked with the local stack's public key, even where one exists in
 * the data directory; the server's check is reported, or the operator's `--public-key`. A loopback stand-in for
 * the deployed API answers an owner with nothing signed yet.
 */

import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureLocalSigningKey } from '../../shared/audit-signing/index.ts';
import { wf } from './support.ts';

const EMPTY_CHAIN = {
  entries: [],
  from: { seq: 0, prevHash: '0'.repeat(64) },
  verification: { ok: true, count: 0, head: '0'.repeat(64) },
};
let server: Server;
let url: string;
const paths: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    paths.push(request.url ?? '');
    response.setHeader('content-type', 'application/json');
    response.end(
      JSON.stringify({
        owner: '123456789012:role:Deployer',
        changes: EMPTY_CHAIN,
        anchors: EMPTY_CHAIN,
        signedHeads: {
          entries: [],
          verification: { ok: true, count: 0, unsigned: { anchors: 0, changes: 0 } },
        },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  // SigV4 signs with the usual credential chain, which reads the process's environment.
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY');
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('wf audit verify --owner with WF_AUTH=aws', () => {
  it("reports the server's check, not one with the local stack's key in the data directory", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wf-local-key-'));
    const localKey = ensureLocalSigningKey(dataDir).publicKey;

    const result = await wf(['audit', 'verify', '--owner'], {
      WF_AUTH: 'aws',
      WF_URL: url,
      AWS_REGION: 'eu-central-1',
      WF_DATA_DIR: dataDir,
    });

    expect(paths).toContain('/v1/audit');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).not.toContain(localKey);
    expect(result.lines.at(-1)).toBe(
      'signatures checked by the server only: pass --public-key FILE to check them here',
    );
  });
});
