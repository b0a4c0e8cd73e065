/** The request examples in docs/api.md work against the app as written. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiKeyAuthenticator } from '../../shared/api/auth.ts';
import { ownerKey } from '../../shared/credentials/owner-key.ts';
import { apiHarness, definition } from './helpers.ts';

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

/** One `curl` of the page: method, path, headers and body as written, `$AUTH` left out (the harness signs). */
type Curl = { text: string; method: string; path: string; headers: Record<string, string>; body?: string };

/** Splits a shell command into words: single and double quotes, no expansions. */
const words = (line: string): string[] =>
  [...line.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)].map(
    (match) => match[1] ?? match[2]?.replaceAll(/\\(.)/g, '$1') ?? match[3]!,
  );

/** Every `curl` of the page's ```sh blocks, lines joined where a `\` or an open quote continues them. */
function curls(): Curl[] {
  const commands: string[] = [];
  for (const block of doc.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    let current: string | undefined;
    for (const line of block[1]!.split('\n')) {
      if (current === undefined && !line.startsWith('curl ')) continue;
      current = current === undefined ? line : `${current}\n${line}`;
      const openQuote = (current.match(/'/g) ?? []).length % 2 === 1;
      if (openQuote) continue;
      if (current.endsWith('\\')) {
        current = current.slice(0, -1);
        continue;
      }
      commands.push(current);
      current = undefined;
    }
  }
  return commands.map((text) => {
    const argv = words(text.replaceAll('\n', ' '));
    const curl: Curl = { text, method: '', path: '', headers: {} };
    for (let i = 1; i < argv.length; i++) {
      const word = argv[i]!;
      const value = argv[i + 1] ?? '';
      if (word === '-X') curl.method = argv[++i]!;
      else if (word === '-H') {
        i++;
        if (value === '$AUTH') continue;
        const at = value.indexOf(':');
        curl.headers[value.slice(0, at)] = value.slice(at + 1).trim();
      } else if (word === '-d') curl.body = argv[++i]!;
      else if (word === '--data-binary') curl.body = `@${argv[++i]!.slice(1)}`;
      else if (word.startsWith('$API')) curl.path = word.slice('$API'.length);
      else curl.path ||= `(unparsed: ${word})`;
    }
    curl.method ||= curl.body === undefined ? 'GET' : 'POST';
    return curl;
  });
}

const RUN_ID = 'run_5b0e4c2d9a8f7e6143c1d0b9a7e2f518';
/** The examples that need what this harness has not: AWS signing, a JWT, a token of an earlier page. */
const needsMore = (curl: Curl) =>
  curl.text.includes('--aws-sigv4') || curl.text.includes('$ID_TOKEN') || curl.path.includes('nextToken=');

describe('docs/api.md curl examples', () => {
  const all = curls();

  it('finds every curl of the page, each with a path', () => {
    expect(all.length).toBeGreaterThanOrEqual(30);
    for (const curl of all) expect(curl.path, curl.text).toMatch(/^\/(v1|local)\//);
  });

  // Each in a world of its own, as the page assumes it: the workflow its id stands for (issue-triage, from the
  // example file), a run of it, and for a draft's replace or publish, that draft (version 2).
  it.each(all.filter((curl) => !needsMore(curl)).map((curl) => [curl.text, curl] as const))(
    '%s',
    async (_, curl) => {
      const h = apiHarness();
      const triage = readFileSync(
        new URL('../../examples/issue-triage.workflow.yaml', import.meta.url),
        'utf8',
      ).replaceAll(':secret:wf/local/', `:secret:wf/${ownerKey(h.owners.alice)}/`);
      const created = await h.alice.postText('/v1/workflows', triage, 'application/yaml');
      const id: string = created.body.workflow.workflowId;
      const run = await h.alice.post(`/v1/workflows/${id}/runs`, {});
      if (curl.path.includes('/versions/2'))
        await h.alice.postText(`/v1/workflows/${id}/versions?draft=true`, triage, 'application/yaml');
      const path = curl.path.replaceAll(FICTIONAL_ID, id).replaceAll(RUN_ID, run.body.run.runId);
      const body =
        curl.body?.startsWith('@') === true
          ? curl.body.endsWith('issue-triage.workflow.yaml')
            ? triage
            : readFileSync(new URL(`../../${curl.body.slice(1)}`, import.meta.url), 'utf8')
          : curl.body;
      // A create of the example file again would take a name this world already holds: it is the world's own.
      const world = curl.method === 'POST' && path === '/v1/workflows' && body === triage;

      const reply = world ? created : await h.alice.call(curl.method, path, body, { headers: curl.headers });

      // A step retry answers only a graph run's failed step; this world's run is an agent run.
      if (path.endsWith('/steps/issue_refund/retry'))
        expect([reply.status, reply.body.error.code]).toEqual([409, 'invalid_state']);
      else expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
    },
  );
});

/** The page's ```json blocks, in order. */
const jsonBlocks = [...doc.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((block) => block[1]!);

describe('docs/api.md JSON examples', () => {
  it('the API keys file example is a valid keys file: owners and principals as the page says', async () => {
    const file = jsonBlocks.find((block) => block.includes('"keys"'))!;
    const auth = apiKeyAuthenticator(file);
    const who = (key: string) =>
      auth.authenticate(new Request('http://local/', { headers: { authorization: `Bearer ${key}` } }), {});

    expect(await who('f3b1c0de-local-key-for-alice')).toEqual({ owner: 'alice', principal: 'alice@laptop' });
    // `principal` defaults to the owner.
    expect(await who('9a7e2b44-local-key-for-bob')).toEqual({ owner: 'bob', principal: 'bob' });
  });

  it('the error example is what an invalid budget is answered', async () => {
    const example = JSON.parse(jsonBlocks.find((block) => block.includes('"error"'))!) as {
      error: { code: string; message: string; fields: { path: string; message: string }[] };
    };
    const h = apiHarness();

    const reply = await h.alice.post('/v1/workflows', definition({ budget: { maxUsdPerRun: 0 } }));

    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({
      code: example.error.code,
      message: example.error.message,
      fields: expect.arrayContaining(example.error.fields),
    });
  });
});
