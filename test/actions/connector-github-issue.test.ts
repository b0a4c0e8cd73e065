import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorActions, GITHUB_API_VERSION } from '../../shared/actions/index.ts';
import type { Action } from '../../shared/core/actions.ts';
import { toolSpecOf } from '../../shared/core/actions.ts';
import {
  actionContext,
  definitionWith,
  type FakeRemote,
  fakeRemote,
  runParsed,
  secretsFile,
} from './support.ts';

const TOKEN = 'wfsecret-GithubToken-Vb8+Rs/64Tn=Jc25';

let remote: FakeRemote;
let fileIssue: Action;
let fileIssueOnEnterprise: Action;

beforeAll(async () => {
  remote = await fakeRemote((request) => {
    const { title } = JSON.parse(request.body) as { title: string };
    if (title === 'invalid') {
      return {
        status: 422,
        headers: { 'content-type': 'application/json' },
        body: '{"message":"Validation Failed","errors":[]}',
      };
    }
    return {
      status: 201,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({
        id: 1,
        number: 42,
        html_url: 'https://github.com/example-org/example-repo/issues/42',
        title,
        user: { login: 'wf-bot', id: 7 },
        body: 'x'.repeat(5000),
      }),
    };
  });
  const connector = (apiBaseUrl: string) => ({
    kind: 'github_create_issue',
    repo: 'example-org/example-repo',
    credential: { slot: 'github_token' },
    apiBaseUrl,
  });
  const definition = definitionWith({
    allowedActions: ['file_issue', 'file_issue_ghe'],
    connectors: {
      file_issue: connector(remote.origin),
      file_issue_ghe: connector(`${remote.origin}/api/v3/`),
    },
    credRefs: { github_token: { secret: 'wf/owner-test/github-token' } },
  });
  const toAction = connectorActions({ userAgent: 'wf-runtime-test' });
  fileIssue = toAction('file_issue', definition.connectors.file_issue!, definition);
  fileIssueOnEnterprise = toAction('file_issue_ghe', definition.connectors.file_issue_ghe!, definition);
});
afterAll(() => remote.close());

const context = () =>
  actionContext({
    ports: [remote.port],
    secrets: secretsFile({ 'wf/owner-test/github-token': TOKEN }),
    idempotencyKey: 'idem_r3_t1_toolu_8',
  });

describe('github_create_issue connector', () => {
  it('POSTs { title, body, labels } to /repos/{owner}/{repo}/issues with the token and GitHub headers, and returns number and URL only', async () => {
    // Act
    const outcome = await runParsed(
      fileIssue,
      { title: 'Printer on fire', body: 'Details…', labels: ['bug'] },
      context(),
    );

    // Assess
    expect(outcome).toEqual({
      content:
        'Created issue #42 in example-org/example-repo: https://github.com/example-org/example-repo/issues/42',
      isError: false,
    });
    const received = remote.received.at(-1)!;
    expect(received).toMatchObject({
      method: 'POST',
      path: '/repos/example-org/example-repo/issues',
      body: '{"title":"Printer on fire","body":"Details…","labels":["bug"]}',
    });
    expect(received.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': GITHUB_API_VERSION,
      'user-agent': 'wf-runtime-test',
      'idempotency-key': 'idem_r3_t1_toolu_8',
      'content-type': 'application/json',
    });
  });

  it('keeps the path of a GitHub Enterprise API base URL', async () => {
    await runParsed(fileIssueOnEnterprise, { title: 'On GHE', body: '' }, context());
    expect(remote.received.at(-1)?.path).toBe('/api/v3/repos/example-org/example-repo/issues');
  });

  it('reports GitHub’s error message with the status', async () => {
    const outcome = await runParsed(fileIssue, { title: 'invalid', body: 'x' }, context());
    expect(outcome).toEqual({ content: 'GitHub answered HTTP 422: Validation Failed', isError: true });
  });

  it('offers title, body and optional labels, names the repository, and needs approval (external publish)', () => {
    const spec = toolSpecOf(fileIssue);
    expect(spec.description).toBe('Create a GitHub issue. Repository: example-org/example-repo.');
    expect(spec.inputSchema).toMatchObject({ required: ['title', 'body'], additionalProperties: false });
    expect(fileIssue).toMatchObject({ irreversible: true, idempotent: false });
    expect(fileIssue.input.safeParse({ title: '', body: 'x' }).success).toBe(false);
  });
});
