/**
 * `alertTopics` entries: a topic alone stays every owner's (no new variable: backward compatible); a
 * `{ topic, owners }` entry reaches Deliver and WorkflowWrite as WF_ALERT_TOPIC_OWNERS, which the runtime
 * reads back into the owners check (shared/notify/alert-topics.ts). Malformed declarations fail at synth.
 */
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../infra/constructs/env-names.ts';
import { WorkflowRuntime, type WorkflowRuntimeProps } from '../../infra/constructs/workflow-runtime.ts';
import { mayUseAlertTopic, parseAlertTopicOwners } from '../../shared/notify/alert-topics.ts';
import { fastApp, flattenIntrinsics, logicalId } from './synth.ts';

const ARN = (name: string) => `arn:aws:sns:eu-west-1:123456789012:${name}`;

function synth(declare: (stack: Stack) => WorkflowRuntimeProps) {
  const stack = new Stack(fastApp(), 'Unit');
  const runtime = new WorkflowRuntime(stack, 'Runtime', declare(stack));
  const functions = flattenIntrinsics(
    Template.fromStack(stack).findResources('AWS::Lambda::Function'),
  ) as Record<string, { Properties: { Environment: { Variables: Record<string, string> } } }>;
  const env = (handler: 'deliver' | 'workflow-write' | 'api') =>
    functions[logicalId(runtime.functions[handler].function)]?.Properties.Environment.Variables ?? {};
  return { env };
}

describe('WorkflowRuntime: alertTopics declared for some owners', () => {
  it('tells Deliver and WorkflowWrite which owners may use which topic, and no other function', () => {
    const { env } = synth((stack) => ({
      alertTopic: sns.Topic.fromTopicArn(stack, 'Default', ARN('alerts')),
      alertTopics: [
        sns.Topic.fromTopicArn(stack, 'Oncall', ARN('oncall')),
        { topic: sns.Topic.fromTopicArn(stack, 'AliceTeam', ARN('alice-team')), owners: ['alice', 'alice'] },
        { topic: new sns.Topic(stack, 'Created'), owners: ['123456789012:role:ci'] },
      ],
    }));
    for (const handler of ['deliver', 'workflow-write'] as const) {
      const owners = parseAlertTopicOwners(env(handler)[ENV.alertTopicOwners]);
      expect(owners[ARN('alice-team')]).toEqual(['alice']);
      expect(Object.values(owners)).toContainEqual(['123456789012:role:ci']);
      expect(owners[ARN('oncall')]).toBeUndefined();
      const policy = { declared: [ARN('oncall'), ARN('alice-team')], owners };
      expect(mayUseAlertTopic(policy, 'bob', ARN('alice-team'))).toBe(false);
      expect(mayUseAlertTopic(policy, 'bob', ARN('oncall'))).toBe(true);
    }
    expect(env('api')[ENV.alertTopicOwners]).toBeUndefined();
  });

  it('adds no variable when every topic is every owner’s (as before owners could be listed)', () => {
    const { env } = synth((stack) => ({
      alertTopics: [sns.Topic.fromTopicArn(stack, 'Oncall', ARN('oncall'))],
    }));
    expect(env('deliver')[ENV.alertTopicArns]).toBe(ARN('oncall'));
    expect(env('deliver')[ENV.alertTopicOwners]).toBeUndefined();
    expect(env('workflow-write')[ENV.alertTopicOwners]).toBeUndefined();
  });

  it.each([
    [
      'no owners',
      (stack: Stack) => ({ alertTopics: [{ topic: topic(stack, 'x'), owners: [] }] }),
      /lists no owners/,
    ],
    [
      'a malformed owner id',
      (stack: Stack) => ({ alertTopics: [{ topic: topic(stack, 'x'), owners: ['alice bob'] }] }),
      /owner 'alice bob' .* is not an owner id/,
    ],
    [
      'the default topic restricted',
      (stack: Stack) => ({
        alertTopic: topic(stack, 'alerts'),
        alertTopics: [{ topic: sns.Topic.fromTopicArn(stack, 'Again', ARN('alerts')), owners: ['alice'] }],
      }),
      /is the default alertTopic/,
    ],
    [
      'a topic declared twice',
      (stack: Stack) => ({
        alertTopics: [
          topic(stack, 'x'),
          { topic: sns.Topic.fromTopicArn(stack, 'Twice', ARN('x')), owners: ['a'] },
        ],
      }),
      /declared twice/,
    ],
    [
      'owner lists too long for a function environment',
      (stack: Stack) => ({
        alertTopics: [
          { topic: topic(stack, 'x'), owners: Array.from({ length: 40 }, (_, i) => `${'o'.repeat(60)}${i}`) },
        ],
      }),
      /at most 2048 fit/,
    ],
  ])('refuses %s at synth', (_label, declare, message) => {
    expect(() => synth(declare)).toThrow(message);
  });
});

const topic = (stack: Stack, name: string) => sns.Topic.fromTopicArn(stack, `T-${name}`, ARN(name));
