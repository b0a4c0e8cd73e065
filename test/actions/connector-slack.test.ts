import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectorConfigError, connectorActions, slackWebhookUrl } from '../../shared/actions/index.ts';
import type { WorkflowDefinition } from '../../shared/schemas/workflow.ts';
import {
  actionContext,
  definitionWith,
  type FakeRemote,
  fakeRemote,
  runParsed,
  secretsFile,
} from './support.ts';

const PATH = '/services/T0001/B0002/wfSlackSecretPath7Kq2Lm9Xz';

let remote: FakeRemote;
let definition: WorkflowDefinition;

beforeAll(async () => {
  remote = await fakeRemote((request) =>
    JSON.parse(request.body).text === 'bad' ? { status: 400, body: 'invalid_payload' } : { body: 'ok' },
  );
  definition = definitionWith({
    allowedActions: ['tell_team'],
    connectors: { tell_team: { kind: 'slack_webhook', credential: { slot: 'team_webhook' } } },
    credRefs: { team_webhook: { secret: 'wf/owner-test/slack-webhook' } },
  });
});
afterAll(() => remote.close());

const context = (url = `${remote.origin}${PATH}`, ports = [remote.port]) =>
  actionContext({
    ports,
    secrets: secretsFile({ 'wf/owner-test/slack-webhook': url }),
    idempotencyKey: 'idem_r2_t0_toolu_5',
  });
const loopbackSlack = () =>
  connectorActions({ slackWebhookOrigins: [remote.origin] })(
    'tell_team',
    definition.connectors.tell_team!,
    definition,
  );

describe('slack_webhook connector', () => {
  it('posts { text, blocks } as JSON to the webhook URL resolved from the secret, and never shows the URL', async () => {
    // Act
    const outcome = await runParsed(
      loopbackSlack(),
      {
        text: 'Deploy *done*',
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Deploy *done*' } }],
      },
      context(),
    );

    // Assess
    expect(outcome).toEqual({ content: 'Posted to Slack.', isError: false });
    const received = remote.received.at(-1)!;
    expect(received).toMatchObject({
      method: 'POST',
      path: PATH,
      body: '{"text":"Deploy *done*","blocks":[{"type":"section","text":{"type":"mrkdwn","text":"Deploy *done*"}}]}',
    });
    expect(received.headers).toMatchObject({
      'content-type': 'application/json',
      'idempotency-key': 'idem_r2_t0_toolu_5',
    });
  });

  it('refuses, in production (no test origin), a webhook secret that is not https://hooks.slack.com, before any request', async () => {
    const before = remote.received.length;
    const strict = connectorActions()('tell_team', definition.connectors.tell_team!, definition);
    const error = await strict.run({ text: 'hi' }, context()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectorConfigError);
    expect((error as Error).message).not.toMatch(/wfSlackSecretPath|127\.0\.0\.1/);
    expect(remote.received.length).toBe(before);
  });

  it.each([
    ['http instead of https', 'http://hooks.slack.com/services/T/B/X'],
    ['a look-alike host', 'https://hooks.slack.com.evil.example/services/T/B/X'],
    ['another port', 'https://hooks.slack.com:8443/services/T/B/X'],
    ['user info', 'https://me@hooks.slack.com/services/T/B/X'],
    ['no path', 'https://hooks.slack.com/'],
    ['not a URL', 'xoxb-not-a-url-at-all'],
  ])('rejects a secret with %s', (_name, secret) => {
    const error = (() => {
      try {
        slackWebhookUrl('tell_team', secret, ['https://hooks.slack.com']);
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error).toBeInstanceOf(ConnectorConfigError);
    expect(error?.message).not.toContain(secret);
  });

  it('accepts a real Slack webhook URL shape', () => {
    expect(
      slackWebhookUrl('tell_team', 'https://hooks.slack.com/services/T0/B0/abc', ['https://hooks.slack.com'])
        .href,
    ).toBe('https://hooks.slack.com/services/T0/B0/abc');
  });

  it('reports Slack’s refusal with its status and reason', async () => {
    const outcome = await runParsed(loopbackSlack(), { text: 'bad' }, context());
    expect(outcome).toEqual({
      content: 'Slack refused the message: HTTP 400 invalid_payload',
      isError: true,
    });
  });

  it('names only the reason when the guard refuses, never the secret URL', async () => {
    const closedPort = actionContext({
      ports: [],
      secrets: secretsFile({ 'wf/owner-test/slack-webhook': `${remote.origin}${PATH}` }),
    });
    const outcome = await runParsed(loopbackSlack(), { text: 'hi' }, closedPort);
    expect(outcome).toEqual({ content: 'The request was not sent: port.', isError: true });
  });

  it('is an external publish: irreversible, so always approved by a human', () => {
    expect(loopbackSlack()).toMatchObject({ irreversible: true, idempotent: false });
    expect(loopbackSlack().input.safeParse({ text: '' }).success).toBe(false);
  });
});
