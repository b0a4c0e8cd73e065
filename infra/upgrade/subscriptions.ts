/**
 * The pre-upgrade subscription check, pure part: which email subscriptions the deployed stack holds (from its
 * template and outputs) against what SNS lists for their topics. An upgrade that changes a subscription
 * (this release sets FilterPolicyScope on every one) makes CloudFormation's update handler read it first, and a
 * subscription SNS no longer has fails that read with NotFound: the update rolls back
 * (https://github.com/aws-cloudformation/aws-cloudformation-resource-providers-sns/blob/main/aws-sns-subscription/src/main/java/software/amazon/sns/subscription/UpdateHandler.java,
 * checkSubscriptionExists). SNS deletes a subscription its person unsubscribes, and an email subscription left
 * unconfirmed 48 hours after it was made
 * (https://aws.amazon.com/about-aws/whats-new/2023/05/amazon-sns-automatic-deletion-unconfirmed-subscriptions/).
 */

/** An email subscription the stack's template declares, with its topic's ARN from the stack outputs. */
export interface DeclaredSubscription {
  readonly logicalId: string;
  readonly email: string;
  readonly topicArn: string;
  /** The stack output naming the topic, e.g. `ApprovalTopicArn`. */
  readonly topicOutput: string;
}

/** One entry of ListSubscriptionsByTopic (`SubscriptionArn` is `PendingConfirmation` until confirmed). */
export interface ListedSubscription {
  readonly SubscriptionArn?: string | undefined;
  readonly Protocol?: string | undefined;
  readonly Endpoint?: string | undefined;
}

export type SubscriptionState = 'confirmed' | 'pending' | 'missing';

export interface SubscriptionFinding extends DeclaredSubscription {
  readonly state: SubscriptionState;
}

type Template = { Resources?: Record<string, { Type?: string; Properties?: Record<string, unknown> }> } & {
  Outputs?: Record<string, { Value?: unknown }>;
};

/** A template given as itself, as its JSON text, or as a GetTemplate answer (`{ TemplateBody }`). */
export function templateFrom(value: unknown): Template {
  const body = (value as { TemplateBody?: unknown } | null)?.TemplateBody ?? value;
  const parsed: unknown = typeof body === 'string' ? JSON.parse(body) : body;
  if (typeof parsed !== 'object' || parsed === null || !('Resources' in parsed))
    throw new Error(
      "--template: not a CloudFormation template (no Resources); give the file 'aws cloudformation get-template " +
        "--stack-name <stack> --query TemplateBody --output json' wrote.",
    );
  return parsed as Template;
}

/**
 * Stack outputs (key → value) from DescribeStacks (`Stacks[0].Outputs`, or the whole answer), from
 * `cdk deploy --outputs-file` (`{ "<stack>": { key: value } }`), or a plain `{ key: value }`.
 */
export function outputsFrom(value: unknown): Record<string, string> {
  const stacks = (value as { Stacks?: { Outputs?: unknown }[] } | null)?.Stacks;
  const list = stacks ? stacks[0]?.Outputs : value;
  if (Array.isArray(list))
    return Object.fromEntries(
      list.map((each: { OutputKey?: unknown; OutputValue?: unknown }) => [
        String(each.OutputKey),
        String(each.OutputValue),
      ]),
    );
  if (typeof list !== 'object' || list === null)
    throw new Error(
      "--outputs: not stack outputs; give the file 'aws cloudformation describe-stacks --stack-name <stack> " +
        "--query Stacks[0].Outputs --output json' wrote.",
    );
  const entries = Object.entries(list);
  // cdk deploy --outputs-file: one object per stack.
  const [only] = entries;
  if (entries.length === 1 && only !== undefined && typeof only[1] === 'object' && only[1] !== null)
    return outputsFrom(only[1]);
  return Object.fromEntries(entries.map(([key, each]) => [key, String(each)]));
}

/** The template's email subscriptions whose topic is a stack output (the approval and owner-notice topics). */
export function declaredSubscriptions(
  template: Template,
  outputs: Readonly<Record<string, string>>,
): DeclaredSubscription[] {
  const outputOf = new Map<string, string>();
  for (const [key, output] of Object.entries(template.Outputs ?? {})) {
    const ref = (output.Value as { Ref?: unknown } | undefined)?.Ref;
    if (typeof ref === 'string') outputOf.set(ref, key);
  }
  return Object.entries(template.Resources ?? {}).flatMap(([logicalId, resource]) => {
    const properties = resource.Properties ?? {};
    if (resource.Type !== 'AWS::SNS::Subscription' || properties.Protocol !== 'email') return [];
    const topicRef = (properties.TopicArn as { Ref?: unknown } | undefined)?.Ref;
    const topicOutput = typeof topicRef === 'string' ? outputOf.get(topicRef) : undefined;
    const topicArn = topicOutput === undefined ? undefined : outputs[topicOutput];
    if (topicOutput === undefined || topicArn === undefined)
      throw new Error(
        `subscription ${logicalId} (${String(properties.Endpoint)}): its topic is not among the stack outputs ` +
          `given (${Object.keys(outputs).join(', ') || 'none'}); give the outputs of the same stack.`,
      );
    return [{ logicalId, email: String(properties.Endpoint).toLowerCase(), topicArn, topicOutput }];
  });
}

/** Each declared subscription's state in the listing of its topic. */
export function classify(
  declared: readonly DeclaredSubscription[],
  listed: ReadonlyMap<string, readonly ListedSubscription[]>,
): SubscriptionFinding[] {
  return declared.map((subscription) => {
    const same = (listed.get(subscription.topicArn) ?? []).filter(
      (each) => each.Protocol === 'email' && each.Endpoint?.toLowerCase() === subscription.email,
    );
    const state: SubscriptionState = same.some((each) => each.SubscriptionArn?.startsWith('arn:'))
      ? 'confirmed'
      : same.length > 0
        ? 'pending'
        : 'missing';
    return { ...subscription, state };
  });
}

/** What to tell the operator: a line per pending or missing subscription, and what to do; `ok` when none. */
export function subscriptionReport(findings: readonly SubscriptionFinding[]): {
  ok: boolean;
  lines: string[];
} {
  const missing = findings.filter((each) => each.state === 'missing');
  const pending = findings.filter((each) => each.state === 'pending');
  const lines = [
    `${findings.length} email subscription(s) in the stack: ${findings.length - missing.length - pending.length} confirmed, ` +
      `${pending.length} pending confirmation, ${missing.length} missing.`,
    ...missing.map(
      (each) =>
        `MISSING  ${each.email} on ${each.topicOutput} (${each.logicalId}): SNS no longer has it (unsubscribed, or ` +
        'left unconfirmed for 48 hours). The upgrade would fail on it and roll back.',
    ),
    ...pending.map(
      (each) =>
        `PENDING  ${each.email} on ${each.topicOutput} (${each.logicalId}): not confirmed yet. SNS deletes it 48 hours ` +
        'after it was made, and then the upgrade fails on it as on a missing one.',
    ),
  ];
  if (missing.length > 0)
    lines.push(
      'For each MISSING address: deploy once without it (drop it from -c approvers / -c ownerNotices; CloudFormation ' +
        'removes the subscription), then deploy again with it: a new subscription, and the person gets a new ' +
        'confirmation email (docs/deploy.md, Upgrade).',
    );
  if (pending.length > 0)
    lines.push(
      'For each PENDING address: ask the person to confirm (the "AWS Notification - Subscription Confirmation" ' +
        'email) before you upgrade; if the link expired, handle it as MISSING.',
    );
  return { ok: missing.length === 0 && pending.length === 0, lines };
}
