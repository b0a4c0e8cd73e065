/**
 * What an operator must do or hold that the stack deliberately does not grant its functions, each with the reason
 * and the doc that says so. test/iam/operator-needs.test.ts checks that no function role holds these actions and
 * that docs/deploy.md tells the operator each one.
 */
export type OperatorNeed = {
  /** What the need is about. */
  topic: string;
  /** IAM actions the operator's principal needs and no function role may hold. */
  actions: readonly string[];
  /** Phrases docs/deploy.md must contain (the step the operator follows). */
  documented: readonly string[];
  /** Phrases docs/deploy.md must no longer contain (a retired or wrong step). */
  retired?: readonly string[];
  reason: string;
};

export const OPERATOR_NEEDS: readonly OperatorNeed[] = [
  {
    topic: 'Bedrock: the first call to a third-party model subscribes the account through AWS Marketplace',
    actions: [
      'aws-marketplace:Subscribe',
      'aws-marketplace:ViewSubscriptions',
      'aws-marketplace:Unsubscribe',
    ],
    documented: [
      'aws-marketplace:Subscribe',
      'aws-marketplace:ViewSubscriptions',
      'first-time-use form',
      'aws bedrock get-foundation-model-availability',
    ],
    // The console's per-model "Model access" page is retired: access is by Marketplace subscription now.
    retired: ['*Model access*', 'Model access, per model and per region'],
    reason:
      'The first call to a third-party model starts a Marketplace subscription that fails unless the caller may ' +
      "subscribe and Anthropic's first-time-use form is in; the calls then answer AccessDeniedException " +
      "(https://docs.aws.amazon.com/bedrock/latest/userguide/model-access.html). Subscribing is an operator's " +
      'decision (prices, EULA), so the Turn role gets no Marketplace rights and docs/deploy.md has the step.',
  },
  {
    topic: "Upgrade: the pre-upgrade check lists the notice topics' subscriptions",
    actions: ['sns:ListSubscriptionsByTopic'],
    documented: [
      'infra/upgrade/check-subscriptions.ts',
      'sns:ListSubscriptionsByTopic',
      'continue-update-rollback',
    ],
    reason:
      "A subscription SNS deleted (unsubscribed, or unconfirmed for 48 h) fails CloudFormation's update of it with " +
      'NotFound and rolls the upgrade back (aws-cloudformation-resource-providers-sns, UpdateHandler ' +
      'checkSubscriptionExists). The operator lists the topics before upgrading; no function needs to.',
  },
  {
    topic: "Prerequisite: the account's Lambda concurrency quota covers the stack's floor",
    actions: ['lambda:GetAccountSettings'],
    documented: [
      'aws lambda get-account-settings --query AccountLimit.ConcurrentExecutions',
      'TooManyRequestsException',
    ],
    reason:
      'New accounts start with a reduced concurrency quota (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html); ' +
      'below the floor (test/infra/concurrency-floor.test.ts) invocations are throttled. The operator reads it once.',
  },
];
