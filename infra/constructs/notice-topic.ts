/** What the two email-notice topics (approval links, owner notices) share: address check and publish grant. */
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { acknowledgeGrantWildcards } from './nag.ts';

// Deliberately loose: SNS validates the address; this catches lists split wrong and names pasted by mistake.
export const EMAIL = /^[^\s@,;]+@[^\s@,;]+\.[^\s@,;]+$/;

/**
 * SNS: "The total combination of values in a filter policy must not exceed 150" (the product of each array's
 * values; https://docs.aws.amazon.com/sns/latest/dg/subscription-filter-policy-constraints.html). Each notice
 * subscription matches one approver (or none) times its owners, so it may list at most this many owners; more
 * would fail the deploy, so synth refuses them.
 */
export const MAX_OWNERS_PER_SUBSCRIPTION = 150;

/** Grants publishing to `topic` (and, under the AWS managed key, using that key through its alias). */
export function grantNoticePublish(
  topic: sns.ITopic,
  masterKey: kms.IKey,
  grantee: iam.IGrantable,
): iam.Grant {
  const grant = topic.grantPublish(grantee);
  // grantPublish also grants use of the key but returns only the sns:Publish grant; this repeats the key
  // grant (policies deduplicate it) to see which statements it made.
  const keyGrant = masterKey.grant(grantee, 'kms:Decrypt', 'kms:GenerateDataKey*');
  acknowledgeGrantWildcards(
    grantee,
    keyGrant,
    'Publishing to a topic under the AWS managed key alias/aws/sns: its key id differs per account and region, so ' +
      'the key grant is on key/* restricted by the condition kms:ResourceAliases = alias/aws/sns.',
  );
  return grant;
}

/**
 * Sets `FilterPolicyScope: MessageAttributes` (SNS's default) on the subscription explicitly. The CDK leaves it
 * out for an attribute filter policy, and a later update that adds or removes a filter policy on such a
 * subscription fails with "FilterPolicyScope: Invalid value [null]" (https://github.com/aws/aws-cdk/issues/24804,
 * https://github.com/aws-cloudformation/cloudformation-coverage-roadmap/issues/1840); stated, it stays put
 * (https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-sns-subscription.html).
 */
export function scopeFilterToAttributes(subscription: sns.Subscription): sns.Subscription {
  const resource = subscription.node.defaultChild as sns.CfnSubscription;
  resource.filterPolicyScope = 'MessageAttributes';
  return subscription;
}
