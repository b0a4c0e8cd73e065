/**
 * The stack's topics, dead-letter queues and subscriptions, pinned by count and by the properties each is there
 * for, so a refactor cannot silently drop one: two topics (approval notices, owner notices) under SNS's key with
 * TLS-only publish; two dead-letter queues (triggers, execution-ended) SQS-encrypted, TLS-only, kept 14 days,
 * each the failure destination of its senders; one email subscription per declared approver and owner, each
 * filtered to its owners.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { defaultRuntime, flattenIntrinsics, logicalId, synthRuntime } from './synth.ts';

const { stack, template } = defaultRuntime();
const runtime = stack.runtime;
const ids = {
  approvalTopic: logicalId(runtime.approvalNotices.topic),
  ownerTopic: logicalId(runtime.ownerNotices.topic),
  triggerQueue: logicalId(runtime.triggers.deadLetters.queue),
  endedQueue: logicalId(runtime.executionEnded.deadLetters.queue),
  startRun: logicalId(runtime.functions['start-run'].function),
  markFailed: logicalId(runtime.functions['mark-failed'].function),
  external: logicalId(runtime.functions.external.function),
};

/** Resources of `type`, their intrinsics flattened (`${Id}`, `${Id.Attr}`), by logical id. */
const flat = (from: Template, type: string) =>
  flattenIntrinsics(from.findResources(type)) as Record<string, { Properties: Record<string, unknown> }>;

/** The SSL-only deny statement CDK's `enforceSSL` adds, for `action` on `resource`. */
const tlsOnly = (action: string, resource: string) =>
  expect.objectContaining({
    Effect: 'Deny',
    Action: action,
    Resource: resource,
    Condition: { Bool: { 'aws:SecureTransport': 'false' } },
  });

describe('Topics', () => {
  const topics = flat(template, 'AWS::SNS::Topic');

  it('are the approval-notices and owner-notices topics, both under the AWS managed key for SNS', () => {
    expect(Object.keys(topics).sort()).toEqual([ids.approvalTopic, ids.ownerTopic].sort());
    for (const topic of Object.values(topics))
      expect(String(topic.Properties.KmsMasterKeyId)).toMatch(/:alias\/aws\/sns$/);
  });

  it('take publishes over TLS only', () => {
    const policies = Object.values(flat(template, 'AWS::SNS::TopicPolicy'));
    expect(policies).toHaveLength(2);
    for (const id of [ids.approvalTopic, ids.ownerTopic]) {
      const policy = policies.find((each) => (each.Properties.Topics as string[]).includes(`\${${id}}`));
      expect(policy?.Properties.PolicyDocument, id).toMatchObject({
        Statement: expect.arrayContaining([tlsOnly('sns:Publish', `\${${id}}`)]),
      });
    }
  });

  it('have no subscription without declared approvers or owners', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });
});

describe('Subscriptions', () => {
  const declared = synthRuntime({
    approvers: [
      { email: 'a@example.com', owners: ['o1', 'o2'] },
      { email: 'b@example.com', owners: ['o1'] },
    ],
    ownerNotices: [{ owner: 'o1', email: 'n@example.com' }],
  });
  const approvalTopic = `\${${logicalId(declared.stack.runtime.approvalNotices.topic)}}`;
  const ownerTopic = `\${${logicalId(declared.stack.runtime.ownerNotices.topic)}}`;

  it('one email subscription per approver and per owner, each filtered on its owners by message attributes', () => {
    const subscriptions = Object.values(flat(declared.template, 'AWS::SNS::Subscription')).map(
      (each) => each.Properties,
    );
    expect(subscriptions).toHaveLength(3);
    expect(subscriptions).toEqual(
      expect.arrayContaining([
        {
          TopicArn: approvalTopic,
          Protocol: 'email',
          Endpoint: 'a@example.com',
          FilterPolicyScope: 'MessageAttributes',
          FilterPolicy: { approver: ['a@example.com'], owner: ['o1', 'o2'] },
        },
        {
          TopicArn: approvalTopic,
          Protocol: 'email',
          Endpoint: 'b@example.com',
          FilterPolicyScope: 'MessageAttributes',
          FilterPolicy: { approver: ['b@example.com'], owner: ['o1'] },
        },
        {
          TopicArn: ownerTopic,
          Protocol: 'email',
          Endpoint: 'n@example.com',
          FilterPolicyScope: 'MessageAttributes',
          FilterPolicy: { owner: ['o1'] },
        },
      ]),
    );
  });
});

describe('Dead-letter queues', () => {
  const queues = flat(template, 'AWS::SQS::Queue');

  it('are the triggers’ and the execution-ended rules’ queues: SQS-managed encryption, kept 14 days', () => {
    expect(Object.keys(queues).sort()).toEqual([ids.triggerQueue, ids.endedQueue].sort());
    for (const queue of Object.values(queues))
      expect(queue.Properties).toEqual({
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 14 * 24 * 3600,
      });
  });

  it('take messages over TLS only', () => {
    const policies = Object.values(flat(template, 'AWS::SQS::QueuePolicy'));
    expect(policies).toHaveLength(2);
    for (const id of [ids.triggerQueue, ids.endedQueue]) {
      const policy = policies.find((each) => (each.Properties.Queues as string[]).includes(`\${${id}}`));
      expect(policy?.Properties.PolicyDocument, id).toMatchObject({
        Statement: expect.arrayContaining([tlsOnly('sqs:*', `\${${id}.Arn}`)]),
      });
    }
  });

  it('receive what start-run, mark-failed and external could not handle after two retries', () => {
    // The jobs sweep's config (no retries, no destination) is pinned in test/infra/jobs-sweep-rules.test.ts.
    const configs = Object.values(flat(template, 'AWS::Lambda::EventInvokeConfig'))
      .map((each) => each.Properties)
      .filter((each) => each.DestinationConfig !== undefined);
    expect(configs).toHaveLength(3);
    expect(configs).toEqual(
      expect.arrayContaining(
        [
          [ids.startRun, ids.triggerQueue],
          [ids.markFailed, ids.endedQueue],
          [ids.external, ids.endedQueue],
        ].map(([fn, queue]) =>
          expect.objectContaining({
            FunctionName: `\${${fn}}`,
            MaximumRetryAttempts: 2,
            DestinationConfig: { OnFailure: { Destination: `\${${queue}.Arn}` } },
          }),
        ),
      ),
    );
  });

  it('receive the execution-ended events mark-failed and external could not take', () => {
    const targets = Object.values(flat(template, 'AWS::Events::Rule')).flatMap(
      (rule) => rule.Properties.Targets as { Arn: string; DeadLetterConfig?: { Arn: string } }[],
    );
    const withDeadLetters = targets.filter((target) => target.DeadLetterConfig !== undefined);
    expect(withDeadLetters.map((target) => target.Arn).sort()).toEqual(
      [`\${${ids.markFailed}.Arn}`, `\${${ids.external}.Arn}`].sort(),
    );
    for (const target of withDeadLetters)
      expect(target.DeadLetterConfig).toEqual({ Arn: `\${${ids.endedQueue}.Arn}` });
  });
});
