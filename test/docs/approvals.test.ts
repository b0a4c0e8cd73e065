/** Every fenced block of docs/approvals.md, checked against the code it describes. */
import { createDecipheriv, createHmac, hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../infra/constructs/env-names.ts';
import { APPROVAL_PAGE_HEADERS } from '../../shared/approvals/headers.ts';
import { approvalUrl, parseKeyring, signApprovalLink } from '../../shared/approvals/index.ts';
import { FORM_STATE_DOMAIN, sealFormState } from '../../shared/approvals-http/form-state.ts';
import { canonicalJson } from '../../shared/audit/index.ts';
import { blockWith, calledNames, exportedNames, fencedBlocks, linkFormat } from './fenced-blocks.ts';

const PAGE = 'approvals.md';
/** Called in the sketches but not the project's: AWS SDK clients and APIs, hono, globals, the sketch's own locals. */
const NOT_OURS = new Set(['SNSClient', 'SFNClient', 'SendTaskSuccess', 'handle', 'print']);

describe('docs/approvals.md', () => {
  it('has the seven blocks this file checks', () => {
    expect(fencedBlocks(PAGE).map((block) => block.info)).toEqual(['', '', '', 'json', 'ts', 'ts', 'ts']);
  });

  it('the flow names operations the code exports', () => {
    const flow = blockWith(PAGE, 'RequestApproval (lambda:invoke.waitForTaskToken');
    const named = [
      ...flow.body.matchAll(/\b(requestApproval|signApprovalLink|approvalUrl|decideApproval)\b/g),
    ];
    expect(named.length).toBeGreaterThanOrEqual(4);
    // camelCase calls are operations (`requestApproval(deps, …)`); capitalised words are states, lower-case prose.
    const operations = calledNames(flow.body).filter((name) => /^[a-z]+[A-Z]/.test(name));
    expect(operations).toContain('requestApproval');
    for (const name of operations) expect(exportedNames(), name).toContain(name);
  });

  it('a link made by the code has the documented URL, claims and MAC', () => {
    const format = linkFormat(blockWith(PAGE, 'wf-approval/v1/link'));
    const secret = 's'.repeat(32);
    const keyring = { current: { kid: 'k1', secret } };
    const token = signApprovalLink(
      { approvalId: 'apr_1', approver: 'ana@example.com', expiresAtMs: 1_000, argsHash: 'a'.repeat(64) },
      keyring,
    );
    const [payload, mac] = token.split('.') as [string, string];
    const base = 'https://approvals.example.com/prod';
    expect(approvalUrl(base, 'apr_1', token)).toBe(
      format.url
        .replace('<publicBaseUrl>', base)
        .replace('<approvalId>', 'apr_1')
        .replace('<payload>.<mac>', token),
    );
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(claims).sort()).toEqual([...format.claims].sort());
    expect(claims.v).toBe(1);
    const expected = createHmac('sha256', secret).update(format.domain).update(payload).digest('base64url');
    expect(mac).toBe(expected);
  });

  it('a form state made by the code opens as the documented format says', () => {
    // Prepare: the block's domain is the code's; the state is opened here from the block's recipe alone.
    const block = blockWith(PAGE, 'wf-approval/v1/form-state');
    expect(block.body).toContain(`"${FORM_STATE_DOMAIN.replace('\n', '\\n')}"`);
    for (const part of ['HKDF-SHA256', 'AES-256-GCM', '"s1."', 'salt 16 bytes, iv 12, tag 16', '32 bytes'])
      expect(block.body).toContain(part);
    const secret = 's'.repeat(32);
    const load = { approval: { approvalId: 'apr_1', runId: 'run_1' }, run: { runId: 'run_1' } };
    const binding = { approvalId: 'apr_1', approver: 'ana@example.com', nonce: 'n.m' };
    const state = sealFormState(load as never, binding, { current: { kid: 'k1', secret } })!;

    // Act
    const [version, kid, salt, iv, ciphertext, tag] = state.split('.') as string[];
    const bytes = (segment: string | undefined) => Buffer.from(segment!, 'base64url');
    const key = Buffer.from(hkdfSync('sha256', secret, bytes(salt), FORM_STATE_DOMAIN, 32));
    const decipher = createDecipheriv('aes-256-gcm', key, bytes(iv));
    decipher.setAAD(Buffer.from(`${FORM_STATE_DOMAIN}s1\n${kid}\n${canonicalJson(binding)}`));
    decipher.setAuthTag(bytes(tag));
    const plain = Buffer.concat([decipher.update(bytes(ciphertext)), decipher.final()]).toString('utf8');

    // Assess
    expect([version, kid, bytes(salt).length, bytes(iv).length, bytes(tag).length]).toEqual([
      's1',
      'k1',
      16,
      12,
      16,
    ]);
    expect(JSON.parse(plain)).toEqual(load);
  });

  it('the keyring example is a keyring parseKeyring accepts', () => {
    const keyring = parseKeyring(blockWith(PAGE, '"current"').body);
    expect(keyring.current.kid).toBe('k2026');
    expect(keyring.previous?.map((key) => key.kid)).toEqual(['k2025']);
  });

  it("quotes the pages' Content-Security-Policy as APPROVAL_PAGE_HEADERS sends it", () => {
    const text = readFileSync(join(import.meta.dirname, '../../docs', PAGE), 'utf8');
    const quoted = /`APPROVAL_PAGE_HEADERS` \(CSP `([^`]+)`/.exec(text)?.[1]?.replace(/\s*\n\s*/g, ' ');
    expect(quoted).toBe(APPROVAL_PAGE_HEADERS['Content-Security-Policy']);
  });

  it("the local stack's sketch puts the host guard before every route, as shared/local/http-local.ts does", () => {
    const local = blockWith(PAGE, 'hostGuard(').body;
    expect(local.indexOf('hostGuard(')).toBeLessThan(local.indexOf('app.route('));
  });

  it.each(fencedBlocks(PAGE).filter((block) => block.info === 'ts'))(
    'the sketch at line $line calls only functions the code exports, with real ENV names',
    (block) => {
      for (const name of calledNames(block.body).filter((n) => !NOT_OURS.has(n)))
        expect(exportedNames(), name).toContain(name);
      for (const match of block.body.matchAll(/ENV\.(\w+)/g)) expect(Object.keys(ENV)).toContain(match[1]);
    },
  );
});
