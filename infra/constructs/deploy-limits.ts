/**
 * Limits a deploy would run into, checked at synth so `cdk synth` refuses the configuration with a clear error
 * instead of CloudFormation failing (and rolling back) halfway through a deploy:
 *
 * - Lambda: "4 KB, for all environment variables associated with the function, in aggregate"
 *   (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html). Joined lists live in them:
 *   `WF_ALERT_TOPIC_ARNS`, `WF_INTERNAL_HOSTS`, `WF_ALERT_TOPIC_OWNERS`. The approver declarations do not: they are
 *   compiled into the bundles (approver-bundling.ts), so the approvers a deployment may declare are bounded by
 *   the two limits below, not by this one.
 * - SNS: each subscription with a filter policy counts against "200 filter policies per topic" by default
 *   (https://docs.aws.amazon.com/sns/latest/dg/subscription-filter-policy-constraints.html); the approval topic
 *   has one per approver, the owner-notices topic one per address.
 * - CloudFormation: at most 500 resources in one template, and a template body of at most 1 MB in S3 (CDK
 *   uploads a template through the bootstrap bucket)
 *   (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html); each approver
 *   and owner-notice address is a subscription resource, its filter policy listing its owners. The body's size is
 *   known only once the template is written, so infra/app.ts checks it after synth (`templateSizeProblem`).
 *
 * Values CloudFormation fills in at deploy (ARNs, generated names) are unknown at synth: each is counted as
 * `TOKEN_BYTES`, more than any ARN this stack produces (about 100 bytes with a 20-character stack name).
 */
import { CfnResource, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { IConstruct, IValidation } from 'constructs';

/** A function's environment variables, names and values as JSON, at most (Lambda's 4 KB). */
export const LAMBDA_ENVIRONMENT_BYTES = 4096;
/** Subscriptions with a filter policy on one topic, at most (SNS's default quota). */
export const FILTER_POLICIES_PER_TOPIC = 200;
/** Resources in one CloudFormation template, at most. */
export const CLOUDFORMATION_RESOURCES = 500;
/** A template body's bytes, at most (1 MB, as CloudFormation counts a template in S3). */
export const CLOUDFORMATION_TEMPLATE_BYTES = 1_000_000;
/** What a value resolved only at deploy (a `Ref`, an `Fn::GetAtt`) is counted as. */
export const TOKEN_BYTES = 200;

/** The bytes of a resolved CloudFormation value as a string, deploy-time parts counted as `TOKEN_BYTES`. */
function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).length;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] } | null)?.['Fn::Join'];
  if (join) {
    const [separator, parts] = join;
    return (
      parts.reduce<number>((sum, part) => sum + valueBytes(part), 0) + separator.length * (parts.length - 1)
    );
  }
  return TOKEN_BYTES;
}

/** The environment's size as Lambda holds it: `{"NAME":"value",...}`. */
export function environmentBytes(variables: Record<string, unknown>): number {
  const entries = Object.entries(variables);
  // Each `"NAME":"value",` is its name and value and 6 bytes; the braces, less the last comma, 1 more.
  if (entries.length === 0) return 2;
  return entries.reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value) + 6, 1);
}

function environmentErrors(fn: lambda.CfnFunction): string[] {
  const resolved = Stack.of(fn).resolve(fn.environment) as
    | { variables?: Record<string, unknown> }
    | undefined;
  const variables = resolved?.variables ?? {};
  const bytes = environmentBytes(variables);
  if (bytes <= LAMBDA_ENVIRONMENT_BYTES) return [];
  const largest = Object.entries(variables)
    .map(([name, value]) => ({ name, bytes: valueBytes(value) }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 3)
    .map((each) => `${each.name} ${each.bytes} bytes`)
    .join(', ');
  return [
    `${fn.node.path}: its environment variables take about ${bytes} bytes; Lambda allows ${LAMBDA_ENVIRONMENT_BYTES} ` +
      `in all (largest: ${largest}). Shorten the lists they carry (approvers, alert topics, internal hosts).`,
  ];
}

function filterPolicyErrors(subscriptions: sns.CfnSubscription[]): string[] {
  const byTopic = new Map<string, string[]>();
  for (const subscription of subscriptions) {
    if (subscription.filterPolicy === undefined) continue;
    const topic = JSON.stringify(Stack.of(subscription).resolve(subscription.topicArn));
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), subscription.node.path]);
  }
  return [...byTopic.entries()]
    .filter(([, paths]) => paths.length > FILTER_POLICIES_PER_TOPIC)
    .map(
      ([topic, paths]) =>
        `topic ${topic} would get ${paths.length} subscriptions with a filter policy; SNS allows ` +
        `${FILTER_POLICIES_PER_TOPIC} per topic by default (one per approver on the approval topic, one per ` +
        'address on the owner-notices topic). List fewer approvers or addresses, or raise the quota first.',
    );
}

function resourceCountErrors(stack: Stack): string[] {
  const count = stack.node.findAll().filter((c) => c instanceof CfnResource && Stack.of(c) === stack).length;
  if (count <= CLOUDFORMATION_RESOURCES) return [];
  return [
    `stack ${stack.stackName} would declare ${count} resources; CloudFormation allows ${CLOUDFORMATION_RESOURCES} ` +
      'in one template (each approver and each owner-notice address is a subscription). List fewer approvers or addresses.',
  ];
}

/** Validates every function and subscription under `scope`, and its stack's size, against the limits above. */
export class DeployLimits implements IValidation {
  private readonly scope: IConstruct;

  constructor(scope: IConstruct) {
    this.scope = scope;
  }

  validate(): string[] {
    const all = this.scope.node.findAll();
    return [
      ...all.filter((c) => c instanceof lambda.CfnFunction).flatMap(environmentErrors),
      ...filterPolicyErrors(all.filter((c): c is sns.CfnSubscription => c instanceof sns.CfnSubscription)),
      ...resourceCountErrors(Stack.of(this.scope)),
    ];
  }
}

/** Why a written template is too large for CloudFormation, or undefined when it fits. */
export function templateSizeProblem(stackName: string, templateBytes: number): string | undefined {
  if (templateBytes <= CLOUDFORMATION_TEMPLATE_BYTES) return undefined;
  return (
    `stack ${stackName}: its template is ${templateBytes} bytes; CloudFormation takes at most ` +
    `${CLOUDFORMATION_TEMPLATE_BYTES} (each approver's subscription lists its owners in a filter policy). ` +
    'Declare fewer owners per approver, or shorter owner ids.'
  );
}
