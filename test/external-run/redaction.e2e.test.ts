/**
 * An engine that echoes the credential it was handed (injected server-side) never gets it stored or shown:
 * its summary and its result artifact reach the run, its audit entries and the delivered report with the
 * owner's secret value cut out (shared/external/run/redacting-adapter.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerSecretPrefix } from '../../shared/credentials/owner-key.ts';
import {
  applyExternal,
  auditOf,
  type ExternalStack,
  externalRunEnded,
  externalWorkflow,
  startExternalRun,
  startExternalStack,
} from './support.ts';

const TOKEN = 'engine-token-5f3c9a1e7b2d4c60';

describe('an engine that echoes its credential', () => {
  let h: ExternalStack;
  beforeAll(async () => {
    h = await startExternalStack();
    const secrets = join(h.dataDir, 'secrets.json');
    const stored = JSON.parse(readFileSync(secrets, 'utf8')) as Record<string, unknown>;
    stored[`${ownerSecretPrefix('wf/', 'local')}engine-token`] = TOKEN;
    writeFileSync(secrets, JSON.stringify(stored));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('has the value redacted in the stored run, its audit entries and the delivered report', async () => {
    h.engine.script('*', {
      running: 1,
      echoHeader: 'authorization',
      summary: 'built with {echo}',
      artifacts: [{ path: 'result.json', content: '{"auth":"{echo}"}' }],
    });
    const secret = `${ownerSecretPrefix('wf/', 'local')}engine-token`;
    const yaml = externalWorkflow(
      'nightly-echo',
      'live',
      `credential: token\ncredRefs: { token: { secret: ${secret} } }\n`,
    );
    const workflowId = await applyExternal(h, 'nightly-echo', yaml);
    const runId = await startExternalRun(h, workflowId);
    const run = await externalRunEnded(h, runId);

    // The engine did get the credential, and did echo it.
    const dispatch = h.engine.requests.find((request) => request.path === '/dispatch');
    expect(dispatch?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(run.status).toBe('done');
    expect(run.external?.outcome?.summary).toBe('built with Bearer [REDACTED]');
    expect(run.result?.text).toBe('{"auth":"Bearer [REDACTED]"}');
    expect(run.delivery).toMatchObject({ status: 'delivered' });
    expect(run.delivery?.report).toContain('Bearer [REDACTED]');

    const audit = await auditOf(h, runId);
    expect(JSON.stringify(audit.entries)).toContain('[REDACTED]');
    for (const text of [JSON.stringify(run), JSON.stringify(audit)]) expect(text).not.toContain(TOKEN);
  });
});
