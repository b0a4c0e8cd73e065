/**
 * Who may send to the execution-ended dead-letter queue, evaluated with iam-simulate on the synthesized
 * template: EventBridge for the two execution-ended rules only (the queue policy; EventBridge sets
 * `aws:SourceArn` to the rule's ARN, https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html),
 * and mark-failed's and external's roles, with which Lambda sends an asynchronous invocation's failure record
 * (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html). Without these, the queue
 * would stay empty while events are dropped.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { logicalId } from '../infra/synth.ts';
import type { PolicyDocument } from './policies.ts';
import { StackPolicies } from './policies.ts';
import { decide } from './simulate.ts';
import { REGION, synthForIam } from './stack.ts';
import { ACCOUNT } from './template.ts';

let policies: StackPolicies;
let queueArn: string;
let queuePolicy: PolicyDocument;
let ruleArns: { run: string; external: string; sweep: string };

beforeAll(() => {
  const synth = synthForIam();
  policies = new StackPolicies(synth);
  const ended = synth.stack.runtime.executionEnded;
  const queueId = logicalId(ended.deadLetters.queue);
  queueArn = policies.resolved.getAtt(queueId, 'Arn');
  // The queue's policy, from its AWS::SQS::QueuePolicy resources (they name the queue by URL, its Ref).
  const queueUrl = policies.resolved.ref(queueId);
  const statements = policies.resolved
    .idsOf('AWS::SQS::QueuePolicy')
    .map(
      (id) => policies.resolved.resolve(policies.resolved.resource(id).Properties) as Record<string, unknown>,
    )
    .filter((p) => (p.Queues as string[]).includes(queueUrl))
    .flatMap((p) => (p.PolicyDocument as PolicyDocument).Statement);
  queuePolicy = { Version: '2012-10-17', Statement: statements };
  const arnOf = (construct: Parameters<typeof logicalId>[0]) =>
    policies.resolved.getAtt(logicalId(construct), 'Arn');
  ruleArns = {
    run: arnOf(ended.runRule),
    external: arnOf(ended.externalRule),
    sweep: arnOf(synth.stack.runtime.jobsSweep.rule),
  };
});

const ruleSends = (ruleArn: string) =>
  decide({
    principal: 'events.amazonaws.com',
    action: 'sqs:SendMessage',
    resource: queueArn,
    context: { 'aws:SourceArn': ruleArn, 'aws:SourceAccount': ACCOUNT, 'aws:SecureTransport': 'true' },
    resourcePolicy: queuePolicy,
  });

describe('Execution-ended dead letters: who may send', () => {
  it('EventBridge, for the run/graph rule and the external rule', async () => {
    expect(await ruleSends(ruleArns.run)).toBe('Allowed');
    expect(await ruleSends(ruleArns.external)).toBe('Allowed');
  });

  it('not EventBridge for another rule', async () => {
    expect(await ruleSends(ruleArns.sweep)).not.toBe('Allowed');
    expect(await ruleSends(`arn:aws:events:${REGION}:${ACCOUNT}:rule/wf-wf_0123`)).not.toBe('Allowed');
  });

  it.each(['mark-failed', 'external'] as const)("%s's role (Lambda's on-failure destination)", async (fn) => {
    const identity = policies.functionIdentity(fn);
    const session = `arn:aws:sts::${ACCOUNT}:assumed-role/${identity.roleArn.split('/').at(-1)}/${fn}`;
    const sends = (resource: string) =>
      decide({
        principal: session,
        action: 'sqs:SendMessage',
        resource,
        context: { 'aws:SecureTransport': 'true' },
        identityPolicies: identity.policies,
        resourcePolicy: queuePolicy,
      });
    expect(await sends(queueArn)).toBe('Allowed');
    expect(await sends(`arn:aws:sqs:${REGION}:${ACCOUNT}:another-queue`)).toBe('ImplicitlyDenied');
  });
});
