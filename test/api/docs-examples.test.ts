/** The request examples in docs/api.md work against the app as written. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ownerKey } from '../../shared/credentials/owner-key.ts';
import { apiHarness } from './helpers.ts';

const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
/** `curl … "$API/<path>" -d '<json>'` examples, in document order. */
const examples = [...doc.matchAll(/"\$API(\/[^"]+)" -d '([^']+)'/g)].map((match) => ({
  path: match[1]!,
  body: JSON.parse(match[2]!) as unknown,
}));
const FICTIONAL_ID = 'wf_8c1d0f5e2a7b4c9d';

describe('docs/api.md examples', () => {
  it('has the create, start and local event examples', () => {
    expect(examples.map((example) => example.path)).toEqual([
      '/v1/workflows',
      `/v1/workflows/${FICTIONAL_ID}/runs`,
      '/v1/events',
      '/local/events',
      '/local/events',
    ]);
  });

  it('creates the example workflow, starts the example run and puts the example events', async () => {
    const h = apiHarness();
    const [create, start, ...events] = examples;
    const created = await h.alice.post(create!.path, create!.body);
    expect(created.status).toBe(201);
    const id = created.body.workflow.workflowId;
    const started = await h.alice.post(start!.path.replace(FICTIONAL_ID, id), start!.body, {
      headers: { 'idempotency-key': 'ticket-4711' },
    });
    expect(started.status).toBe(201);
    for (const event of events) expect((await h.alice.post(event.path, event.body)).status).toBe(200);
  });

  it('creates a workflow from the example YAML file the curl example sends', async () => {
    const h = apiHarness();
    // The examples are written for the local stack's owner `local`; here the caller is another owner.
    const yaml = readFileSync(
      new URL('../../examples/issue-triage.workflow.yaml', import.meta.url),
      'utf8',
    ).replaceAll(':secret:wf/local/', `:secret:wf/${ownerKey(h.owners.alice)}/`);
    const reply = await h.alice.postText('/v1/workflows', yaml, 'application/yaml');
    expect(reply.status).toBe(201);
    expect(reply.body.workflow.name).toBe('issue-triage');
  });
});
