/**
 * `OwnerNotices`: the SNS topic that tells a run's owner it failed, ended denied, or that one of its approvals
 * expired or reached no approver. A second topic, not the approval topic: owner notices carry no approval
 * link, and keeping them apart means no subscription of one kind can ever receive the other. Each
 * subscription filters on the `owner` message attribute, so an address hears only of the owners listed for it.
 */
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import {
  EMAIL,
  grantNoticePublish,
  MAX_OWNERS_PER_SUBSCRIPTION,
  scopeFilterToAttributes,
} from './notice-topic.ts';

/** The message attribute (String, the run's owner id exactly as the API identifies it) subscriptions filter on. */
export const OWNER_MESSAGE_ATTRIBUTE = 'owner';

/** One owner whose notices go to one email address. */
export interface OwnerSubscription {
  /** The owner id (`<account>:role:<name>` with IAM, the JWT subject with JWT; `wf whoami` prints it). */
  readonly owner: string;
  /** Where that owner's notices go (the address must confirm the subscription). */
  readonly email: string;
}

/** Properties of `OwnerNotices`. */
export interface OwnerNoticesProps {
  /**
   * Owners and their addresses. An address listed for several owners gets one subscription for all (at most
   * MAX_OWNERS_PER_SUBSCRIPTION of them). @default - none
   */
  readonly owners?: readonly OwnerSubscription[];
  /** Key that encrypts messages at rest. @default - the AWS managed key alias/aws/sns */
  readonly masterKey?: kms.IKey;
}

const OWNER = /^[A-Za-z0-9._:@+=|/-]{1,128}$/;

/** The owner-notices topic and its per-owner filtered subscriptions. */
export class OwnerNotices extends Construct {
  /** The topic. */
  public readonly topic: sns.Topic;
  private readonly masterKey: kms.IKey;

  constructor(scope: Construct, id: string, props: OwnerNoticesProps = {}) {
    super(scope, id);
    this.masterKey = props.masterKey ?? kms.Alias.fromAliasName(this, 'AwsManagedKey', 'alias/aws/sns');
    this.topic = new sns.Topic(this, 'Topic', {
      displayName: 'Workflow run notices',
      enforceSSL: true,
      masterKey: this.masterKey,
    });
    const byEmail = new Map<string, string[]>();
    for (const { owner, email } of props.owners ?? []) {
      const address = email.trim().toLowerCase();
      if (!EMAIL.test(address))
        throw new Error(`OwnerNotices '${id}': '${email}' (owner '${owner}') is not an email address.`);
      if (!OWNER.test(owner))
        throw new Error(
          `OwnerNotices '${id}': owner '${owner}' is not an owner id; use the id the API reports for the owner.`,
        );
      const owners = byEmail.get(address) ?? [];
      if (!owners.includes(owner)) owners.push(owner);
      byEmail.set(address, owners);
    }
    // One subscription per address (the CDK names a topic's subscriptions by endpoint), its filter listing all
    // its owners. A subscription accepts a message only when each property name in its filter policy matches a
    // message attribute and one of the values matches
    // (https://docs.aws.amazon.com/sns/latest/dg/sns-subscription-filter-policies.html): a notice for
    // another owner, or one without an `owner` attribute, never reaches this address.
    for (const [address, owners] of byEmail) {
      if (owners.length > MAX_OWNERS_PER_SUBSCRIPTION)
        throw new Error(
          `OwnerNotices '${id}': '${address}' is listed for ${owners.length} owners; its subscription's SNS filter ` +
            `policy holds at most ${MAX_OWNERS_PER_SUBSCRIPTION}. List the address for fewer owners.`,
        );
      scopeFilterToAttributes(
        this.topic.addSubscription(
          new subscriptions.EmailSubscription(address, {
            filterPolicy: {
              [OWNER_MESSAGE_ATTRIBUTE]: sns.SubscriptionFilter.stringFilter({ allowlist: owners }),
            },
          }),
        ),
      );
    }
  }

  /** ARN of the topic. */
  public get topicArn(): string {
    return this.topic.topicArn;
  }

  /** Grants publishing notices (and, under the AWS managed key, using that key through its alias). */
  public grantPublish(grantee: iam.IGrantable): iam.Grant {
    return grantNoticePublish(this.topic, this.masterKey, grantee);
  }
}
