/**
 * The pre-upgrade subscription check (infra/upgrade/): against recorded ListSubscriptionsByTopic pages served on
 * loopback (no AWS call), it names the stack's missing and pending email subscriptions; and every notice
 * subscription states FilterPolicyScope, so a later filter change cannot fail on "Invalid value [null]".
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SNSClient } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTopicSubscriptions } from '../../infra/upgrade/list-subscriptions.ts';
import {
  classify,
  declaredSubscriptions,
  type ListedSubscription,
  outputsFrom,
  subscriptionReport,
  templateFrom,
} from '../../infra/upgrade/subscriptions.ts';
import { synthRuntime } from './synth.ts';

const APPROVAL_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:WfRuntime-ApprovalNoticesTopic-AbC';
const OWNER_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:WfRuntime-OwnerNoticesTopic-DeF';
const OWNER = '123456789012:role:team-a';

const member = (topic: string, email: string, arn: string) =>
  `<member><TopicArn>${topic}</TopicArn><Protocol>email</Protocol><SubscriptionArn>${arn}</SubscriptionArn><Owner>123456789012</Owner><Endpoint>${email}</Endpoint></member>`;
const page = (members: string[], next?: string) =>
  `<ListSubscriptionsByTopicResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><ListSubscriptionsByTopicResult><Subscriptions>${members.join('')}</Subscriptions>${next ? `<NextToken>${next}</NextToken>` : ''}</ListSubscriptionsByTopicResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></ListSubscriptionsByTopicResponse>`;

/**
 * Recorded pages: the approval topic in two pages (alice confirmed, bob pending confirmation, carol gone: she
 * unsubscribed), the owner-notice topic in one (ops confirmed).
 */
const PAGES: Record<string, string> = {
  [`${APPROVAL_TOPIC}|`]: page(
    [member(APPROVAL_TOPIC, 'alice@example.com', `${APPROVAL_TOPIC}:80289ba6-0fd4-4079-afb4-ce8c8260f0ca`)],
    'page-2',
  ),
  [`${APPROVAL_TOPIC}|page-2`]: page([member(APPROVAL_TOPIC, 'Bob@Example.com', 'PendingConfirmation')]),
  [`${OWNER_TOPIC}|`]: page([
    member(OWNER_TOPIC, 'ops@example.com', `${OWNER_TOPIC}:1c2d3e4f-0000-4000-8000-aaaaaaaaaaaa`),
  ]),
};

let server: ReturnType<typeof createServer>;
let client: SNSClient;
const requests: URLSearchParams[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      requests.push(form);
      const xml = PAGES[`${form.get('TopicArn')}|${form.get('NextToken') ?? ''}`];
      response.writeHead(xml ? 200 : 400, { 'content-type': 'text/xml' });
      response.end(xml ?? '<ErrorResponse><Error><Code>NotFound</Code></Error></ErrorResponse>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new SNSClient({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
});

afterAll(async () => {
  client.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

// The deployed template: three approvers for one owner, one owner-notice address.
const { template } = synthRuntime({
  approvers: ['alice@example.com', 'bob@example.com', 'carol@example.com'].map((email) => ({
    email,
    owners: [OWNER],
  })),
  ownerNotices: [{ owner: OWNER, email: 'ops@example.com' }],
});
const deployed = template.toJSON();

describe('Pre-upgrade subscription check', () => {
  it('names the missing and the pending subscription from recorded ListSubscriptionsByTopic pages', async () => {
    // As the operator's files hold them: get-template's TemplateBody as text, describe-stacks' Outputs list.
    const outputs = outputsFrom([
      { OutputKey: 'ApprovalTopicArn', OutputValue: APPROVAL_TOPIC },
      { OutputKey: 'OwnerTopicArn', OutputValue: OWNER_TOPIC },
      { OutputKey: 'ApiUrl', OutputValue: 'https://abc.execute-api.eu-west-1.amazonaws.com' },
    ]);
    const declared = declaredSubscriptions(templateFrom({ TemplateBody: JSON.stringify(deployed) }), outputs);
    expect(declared.map((each) => each.email).sort()).toEqual([
      'alice@example.com',
      'bob@example.com',
      'carol@example.com',
      'ops@example.com',
    ]);

    const listed = new Map<string, ListedSubscription[]>();
    for (const topic of [APPROVAL_TOPIC, OWNER_TOPIC])
      listed.set(topic, await listTopicSubscriptions(client, topic));
    // Both pages of the approval topic were read (the second with the first's NextToken).
    expect(requests.map((form) => [form.get('Action'), form.get('NextToken')])).toEqual([
      ['ListSubscriptionsByTopic', null],
      ['ListSubscriptionsByTopic', 'page-2'],
      ['ListSubscriptionsByTopic', null],
    ]);

    const findings = classify(declared, listed);
    const stateOf = Object.fromEntries(findings.map((each) => [each.email, each.state]));
    expect(stateOf).toEqual({
      'alice@example.com': 'confirmed',
      'bob@example.com': 'pending',
      'carol@example.com': 'missing',
      'ops@example.com': 'confirmed',
    });
    const report = subscriptionReport(findings);
    expect(report.ok).toBe(false);
    const text = report.lines.join('\n');
    expect(text).toContain(
      '4 email subscription(s) in the stack: 2 confirmed, 1 pending confirmation, 1 missing.',
    );
    expect(text).toMatch(/^MISSING {2}carol@example\.com on ApprovalTopicArn \(/m);
    expect(text).toMatch(/^PENDING {2}bob@example\.com on ApprovalTopicArn \(/m);
    expect(text).toContain('deploy once without it');
    expect(text).not.toMatch(/alice|ops@/);
  });

  it('passes when every subscription is confirmed, and refuses outputs of another stack', () => {
    const outputs = { ApprovalTopicArn: APPROVAL_TOPIC, OwnerTopicArn: OWNER_TOPIC };
    const declared = declaredSubscriptions(templateFrom(deployed), outputs);
    const all = new Map<string, ListedSubscription[]>([
      [APPROVAL_TOPIC, ['alice', 'bob', 'carol'].map((name) => confirmed(`${name}@example.com`))],
      [OWNER_TOPIC, [confirmed('ops@example.com')]],
    ]);
    expect(subscriptionReport(classify(declared, all)).ok).toBe(true);
    expect(() => declaredSubscriptions(templateFrom(deployed), { ApiUrl: 'x' })).toThrow(
      /its topic is not among the stack outputs given \(ApiUrl\)/,
    );
  });
});

const confirmed = (email: string): ListedSubscription => ({
  SubscriptionArn: `arn:aws:sns:eu-west-1:123456789012:t:${email}`,
  Protocol: 'email',
  Endpoint: email,
});

describe('Notice subscriptions', () => {
  it('state FilterPolicyScope MessageAttributes on every subscription with a filter policy', () => {
    const subscriptions = Object.values(template.findResources('AWS::SNS::Subscription'));
    expect(subscriptions).toHaveLength(4);
    for (const subscription of subscriptions) {
      expect(subscription.Properties.FilterPolicy).toBeDefined();
      expect(subscription.Properties.FilterPolicyScope).toBe('MessageAttributes');
    }
  });
});
