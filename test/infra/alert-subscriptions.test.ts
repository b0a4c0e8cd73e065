/**
 * Synth refuses a subscription in the app that would receive several owners' run reports: on an alert topic
 * several owners share, without a filter policy confining the `owner` message attribute every alert carries.
 */
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subs from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import type { AlertTopicDeclaration } from '../../infra/constructs/alert-topics.ts';
import { WorkflowRuntime, type WorkflowRuntimeProps } from '../../infra/constructs/workflow-runtime.ts';
import { fastApp } from './synth.ts';

const ARN = (name: string) => `arn:aws:sns:eu-west-1:123456789012:${name}`;
type Declare = (stack: Stack) => WorkflowRuntimeProps;

/** Synthesizes the runtime with `declare`'s topics and `subscribe`'s subscriptions; what it throws, if anything. */
function synthError(declare: Declare, subscribe: (stack: Stack, props: WorkflowRuntimeProps) => void) {
  const stack = new Stack(fastApp(), 'Unit');
  const props = declare(stack);
  new WorkflowRuntime(stack, 'Runtime', props);
  subscribe(stack, props);
  try {
    Template.fromStack(stack);
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

const emailTo = (topic: sns.ITopic, id: string, options: subs.EmailSubscriptionProps = {}) =>
  topic.addSubscription(new subs.EmailSubscription(`${id}@example.com`, options));
const filter = (owner: sns.SubscriptionFilter) => ({ filterPolicy: { owner } });
const topicOf = (declared: AlertTopicDeclaration | undefined): sns.ITopic => {
  if (declared === undefined) throw new Error('no such topic in the case');
  return 'topic' in declared && 'owners' in declared ? declared.topic : declared;
};

/** The default topic, a topic alone (imported by ARN), one shared by two owners, one of a single owner. */
const declare: Declare = (stack) => ({
  alertTopic: new sns.Topic(stack, 'Alerts'),
  alertTopics: [
    sns.Topic.fromTopicArn(stack, 'Oncall', ARN('oncall')),
    { topic: new sns.Topic(stack, 'Team'), owners: ['alice', 'bob'] },
    { topic: new sns.Topic(stack, 'Alice'), owners: ['alice', 'alice'] },
  ],
});
const topics = (props: WorkflowRuntimeProps) => ({
  alerts: topicOf(props.alertTopic),
  oncall: topicOf(props.alertTopics?.[0]),
  team: topicOf(props.alertTopics?.[1]),
  alice: topicOf(props.alertTopics?.[2]),
});

describe('Construct: AlertSubscriptionCheck', () => {
  it('refuses an unfiltered subscription on each kind of shared topic, naming it and the fix', () => {
    const error = synthError(declare, (_, props) => {
      const { alerts, oncall, team } = topics(props);
      for (const [id, topic] of Object.entries({ alerts, oncall, team })) emailTo(topic, id);
    });
    for (const id of ['alerts', 'oncall', 'team'])
      expect(error).toContain(
        `/${id}@example.com/Resource: subscribes to an alert topic several owners share and has no filter policy, so it would receive every owner's run reports. Give it filterPolicy { owner:`,
      );
  });

  it('refuses a filter that does not confine the owner attribute to named owners', () => {
    const error = synthError(declare, (_, props) => {
      const { team } = topics(props);
      emailTo(team, 'other-attribute', {
        filterPolicy: { kind: sns.SubscriptionFilter.stringFilter({ allowlist: ['x'] }) },
      });
      emailTo(team, 'anything-but', filter(sns.SubscriptionFilter.stringFilter({ denylist: ['alice'] })));
      emailTo(team, 'body', {
        filterPolicyWithMessageBody: {
          owner: sns.FilterOrPolicy.filter(sns.SubscriptionFilter.stringFilter({ allowlist: ['alice'] })),
        },
      });
    });
    expect(error).toMatch(
      /other-attribute@example.com\/Resource: .* has a filter policy without the 'owner' attribute/,
    );
    expect(error).toMatch(
      /anything-but@example.com\/Resource: .* matches 'owner' otherwise than by exact owner ids/,
    );
    expect(error).toMatch(/body@example.com\/Resource: .* filters on the message body/);
  });

  it('refuses one made in another stack of the app (a queue subscribing across stacks)', () => {
    const error = synthError(declare, (stack, props) => {
      const other = new Stack(stack.node.root, 'Consumer');
      topics(props).alerts.addSubscription(new subs.SqsSubscription(new sqs.Queue(other, 'Inbox')));
    });
    expect(error).toMatch(/Consumer\/Inbox\/.*has no filter policy/);
  });

  it('lets owner allowlists, { exists: true } and an unfiltered single-owner topic synthesize', () => {
    const error = synthError(declare, (_, props) => {
      const { alerts, oncall, team, alice } = topics(props);
      emailTo(alerts, 'alice-only', filter(sns.SubscriptionFilter.stringFilter({ allowlist: ['alice'] })));
      emailTo(oncall, 'both', filter(sns.SubscriptionFilter.stringFilter({ allowlist: ['alice', 'bob'] })));
      // Every owner's reports, chosen in the template (a platform team's inbox).
      emailTo(team, 'everyone', filter(sns.SubscriptionFilter.existsFilter()));
      emailTo(alice, 'alice');
    });
    expect(error).toBe('');
  });
});
