import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorActions, DEFAULT_USER_AGENT, GITHUB_API_VERSION } from '../../shared/actions/index.ts';
import type { Action } from '../../shared/core/actions.ts';
import {
  actionContext,
  definitionWith,
  type FakeRemote,
  fakeRemote,
  runParsed,
  secretsFile,
} from './support.ts';

const TOKEN = 'wfsecret-GithubComment-Fx4+Wm/57Ud=Ko36';

let remote: FakeRemote;
let comment: Action;

beforeAll(async () => {
  remote = await fakeRemote((request) =>
    request.path.includes('/issues/404/')
      ? { status: 404, headers: { 'content-type': 'application/json' }, body: '{"message":"Not Found"}' }
      : request.path.includes('/issues/307/')
        ? { status: 307, headers: { location: `http://localhost:${remote.port}/collect` } }
        : {
            status: 201,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              id: 9001,
              html_url: 'https://github.com/o/r/issues/7#issuecomment-9001',
              body: 'x',
              user: { login: 'bot' },
            }),
          },
  );
  const definition = definitionWith({
    allowedActions: ['comment_on_issue'],
    connectors: {
      comment_on_issue: {
        kind: 'github_create_comment',
        repo: 'example-org/example-repo',
        credential: { slot: 'github_token' },
        apiBaseUrl: remote.origin,
      },
    },
    credRefs: { github_token: { secret: 'wf/owner-test/github-token', field: 'token' } },
  });
  comment = connectorActions()('comment_on_issue', definition.connectors.comment_on_issue!, definition);
});
afterAll(() => remote.close());

const context = () =>
  actionContext({
    ports: [remote.port],
    secrets: secretsFile({ 'wf/owner-test/github-token': { token: TOKEN, note: 'a JSON secret' } }),
    idempotencyKey: 'idem_r4_t3_toolu_2',
  });

describe('github_create_comment connector', () => {
  it('POSTs { body } to /repos/{owner}/{repo}/issues/{number}/comments with the token from the secret’s field', async () => {
    // Act
    const outcome = await runParsed(comment, { number: 7, body: 'Looks like a duplicate of #3.' }, context());

    // Assess
    expect(outcome).toEqual({
      content:
        'Commented on #7 in example-org/example-repo: https://github.com/o/r/issues/7#issuecomment-9001 (comment 9001)',
      isError: false,
    });
    const received = remote.received.at(-1)!;
    expect(received).toMatchObject({
      method: 'POST',
      path: '/repos/example-org/example-repo/issues/7/comments',
      body: '{"body":"Looks like a duplicate of #3."}',
    });
    expect(received.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': GITHUB_API_VERSION,
      'user-agent': DEFAULT_USER_AGENT,
      'idempotency-key': 'idem_r4_t3_toolu_2',
    });
  });

  it('reports a missing issue', async () => {
    const outcome = await runParsed(comment, { number: 404, body: 'hello' }, context());
    expect(outcome).toEqual({ content: 'GitHub answered HTTP 404: Not Found', isError: true });
  });

  it('never follows a redirect off the API host, so the token stays with GitHub', async () => {
    const before = remote.received.length;
    const outcome = await runParsed(comment, { number: 307, body: 'hello' }, context());
    // A POST is never redirected off its origin (redirect_off_origin), before the host allow-list is asked.
    expect(outcome).toMatchObject({ isError: true, content: expect.stringContaining('redirect_off_origin') });
    expect(remote.received.slice(before).map((r) => r.path)).toEqual([
      '/repos/example-org/example-repo/issues/307/comments',
    ]);
  });

  it.each([
    ['a zero issue number', { number: 0, body: 'x' }],
    ['a fractional issue number', { number: 1.5, body: 'x' }],
    ['a path in the number', { number: '1/../../admin', body: 'x' }],
    ['an empty body', { number: 1, body: '' }],
  ])('rejects %s at the schema', (_name, input) => {
    expect(comment.input.safeParse(input).success).toBe(false);
  });
});
