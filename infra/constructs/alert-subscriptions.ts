/**
 * Synth refuses a subscription that would receive several owners' run reports: one on an alert topic shared by
 * several owners (the default `alertTopic`, a topic declared alone in `alertTopics`, or `{ topic, owners }` with
 * two or more owners) without a filter policy on the `owner` message attribute every alert carries.
 *
 * - "If a subscription doesn't have a filter policy, the subscriber receives every message published to its
 *   topic" (https://docs.aws.amazon.com/sns/latest/dg/message-filtering.html).
 * - A filter policy applies to message attributes unless its scope is `MessageBody`
 *   (https://docs.aws.amazon.com/sns/latest/dg/sns-message-filtering-scope.html); the owner travels as an
 *   attribute, so a body-scoped policy does not confine it.
 * - Properties a policy does not name are ignored
 *   (https://docs.aws.amazon.com/sns/latest/dg/sns-subscription-filter-policies.html): a policy on other
 *   attributes only does not confine the owner either.
 * - Accepted: `owner` matched by exact strings (`SubscriptionFilter.stringFilter({ allowlist })`), or by
 *   `[{ "exists": true }]` alone (`SubscriptionFilter.existsFilter()`, every alert: a receiver of all owners'
 *   reports, chosen in the template, https://docs.aws.amazon.com/sns/latest/dg/attribute-key-matching.html).
 *
 * Only subscriptions in this CDK app can be seen (matched by the topic's ARN token or literal ARN); one made in
 * the console or another app is not checked (docs/security.md).
 */
import { Stack } from 'aws-cdk-lib';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { IConstruct, IValidation } from 'constructs';
import { OWNER_MESSAGE_ATTRIBUTE } from './owner-notices.ts';

/** Why `policy` (a resolved filter policy) does not confine a subscription to named owners, or undefined. */
function ownerFilterProblem(policy: unknown, scope: unknown): string | undefined {
  if (policy === undefined) return 'has no filter policy';
  if (scope === 'MessageBody') return 'filters on the message body, where the owner is not';
  const conditions = (policy as Record<string, unknown> | null)?.[OWNER_MESSAGE_ATTRIBUTE];
  if (!Array.isArray(conditions) || conditions.length === 0)
    return `has a filter policy without the '${OWNER_MESSAGE_ATTRIBUTE}' attribute`;
  const exact = conditions.every((condition) => typeof condition === 'string');
  const everyOwner =
    conditions.length === 1 && JSON.stringify(conditions[0]) === JSON.stringify({ exists: true });
  if (exact || everyOwner) return undefined;
  return `matches '${OWNER_MESSAGE_ATTRIBUTE}' otherwise than by exact owner ids or { exists: true } alone`;
}

/** Validates every SNS subscription in the app against the alert topics several owners share. */
export class AlertSubscriptionCheck implements IValidation {
  private readonly scope: IConstruct;
  private readonly shared: readonly sns.ITopic[];

  constructor(scope: IConstruct, shared: readonly sns.ITopic[]) {
    this.scope = scope;
    this.shared = shared;
  }

  validate(): string[] {
    const sharedArns = new Set(this.shared.map((topic) => topic.topicArn));
    if (sharedArns.size === 0) return [];
    return this.scope.node.root.node
      .findAll()
      .filter((c): c is sns.CfnSubscription => c instanceof sns.CfnSubscription)
      .filter((subscription) => sharedArns.has(subscription.topicArn))
      .flatMap((subscription) => {
        const stack = Stack.of(subscription);
        const problem = ownerFilterProblem(
          stack.resolve(subscription.filterPolicy),
          stack.resolve(subscription.filterPolicyScope),
        );
        if (problem === undefined) return [];
        return [
          `${subscription.node.path}: subscribes to an alert topic several owners share and ${problem}, so it ` +
            `would receive every owner's run reports. Give it filterPolicy { ${OWNER_MESSAGE_ATTRIBUTE}: ` +
            "sns.SubscriptionFilter.stringFilter({ allowlist: ['<owner id>'] }) } (wf whoami prints an id), or " +
            'declare the topic for one owner only ({ topic, owners: [id] }).',
        ];
      });
  }
}
