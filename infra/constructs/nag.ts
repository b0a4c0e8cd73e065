/**
 * Helpers to acknowledge cdk-nag findings next to the resource that causes them, with a reason.
 * cdk-nag 3 acknowledges one finding at a time (`AwsSolutions-IAM5[Resource::<Fn.Arn>:*]`), and a finding
 * names resources by logical id; `nagRef` renders a token the way cdk-nag does, so no logical id is hard-coded.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct, type IConstruct } from 'constructs';

/** Acknowledges one cdk-nag finding on `scope` and everything under it. */
export function acknowledge(scope: IConstruct, id: string, options: { readonly reason: string }): void {
  Validations.of(scope).acknowledge({ id, reason: options.reason });
}

/** Renders a token (an ARN, a name) the way cdk-nag writes it into a finding id, e.g. `<TurnFunction1A2B.Arn>`. */
export function nagRef(scope: IConstruct, value: string): string {
  return flatten(Stack.of(scope).resolve(value));
}

function flatten(node: unknown): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/}/g, '>');
  if (typeof node === 'object' && node !== null) {
    const record = node as Record<string, unknown>;
    if ('Fn::Join' in record) {
      const [delimiter, items] = record['Fn::Join'] as [string, unknown[]];
      return items.map(flatten).join(delimiter);
    }
    if ('Fn::Sub' in record) return flatten(record['Fn::Sub']);
    if ('Fn::GetAtt' in record) {
      const [resource, attribute] = record['Fn::GetAtt'] as [unknown, unknown];
      return `<${flatten(resource)}.${flatten(attribute)}>`;
    }
    if ('Fn::ImportValue' in record) return flatten(record['Fn::ImportValue']);
    if ('Ref' in record) return `<${flatten(record.Ref)}>`;
  }
  return JSON.stringify(node);
}

/**
 * Acknowledges the AwsSolutions-IAM5 findings (wildcard actions and resources) that a grant causes on its
 * grantee, with one reason. Reads the grant's own statements, so no finding id is spelled out by hand.
 * Does nothing when the grantee is not a construct (acknowledgements attach to constructs).
 */
export function acknowledgeGrantWildcards(grantee: iam.IGrantable, grant: iam.Grant, reason: string): void {
  if (!Construct.isConstruct(grantee)) return;
  for (const statement of grant.principalStatements) {
    for (const action of statement.actions) {
      if (action.includes('*')) acknowledge(grantee, `AwsSolutions-IAM5[Action::${action}]`, { reason });
    }
    for (const resource of statement.resources) {
      const flat = nagRef(grantee, resource);
      if (flat.includes('*')) acknowledge(grantee, `AwsSolutions-IAM5[Resource::${flat}]`, { reason });
    }
  }
}
