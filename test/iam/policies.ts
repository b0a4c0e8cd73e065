/**
 * The synthesized stack's policies, resolved (template.ts), as the IAM check needs them: each function's
 * role and identity policies, its environment, and the resource policies (topic policies, key policies,
 * trust policies, Lambda permissions) of the resources that have one.
 */
import type { HandlerName } from '../../infra/constructs/state-names.ts';
import { logicalId, type SynthesizedRuntime } from '../infra/synth.ts';
import { ACCOUNT, ResolvedTemplate } from './template.ts';

export type PolicyDocument = { Version?: string; Statement: Statement[] };
export type Statement = {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  Resource?: string | string[];
  Principal?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
};

export type FunctionIdentity = {
  fn: HandlerName;
  functionArn: string;
  roleArn: string;
  /** The role's identity policies (inline default policies and any other policy attached to the role). */
  policies: { name: string; policy: PolicyDocument }[];
  /** The function's environment variables, resolved. */
  environment: Record<string, string>;
  /**
   * What its bundle has compiled in (`process.env.NAME` defined at bundling: the approver declarations);
   * the handlers run unbundled here, so these are set in the environment in its place.
   */
  bundledConstants: Readonly<Record<string, string>>;
};

export const asList = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

export class StackPolicies {
  readonly resolved: ResolvedTemplate;
  readonly synth: SynthesizedRuntime;
  /** `stackName`: names CloudFormation generates start with it (template.ts), for comparing two stacks. */
  constructor(synth: SynthesizedRuntime, physicalNames: Record<string, string> = {}, stackName?: string) {
    this.synth = synth;
    const region = synth.stack.region;
    if (region.startsWith('${Token')) throw new Error('synthesize the stack with a concrete env.region');
    this.resolved = new ResolvedTemplate(
      synth.template.toJSON() as ConstructorParameters<typeof ResolvedTemplate>[0],
      region,
      physicalNames,
      stackName,
    );
  }

  /** The policies attached to the role with logical id `roleId`. */
  rolePolicies(roleId: string): { name: string; policy: PolicyDocument }[] {
    const attached = this.resolved.resources.filter(
      ([, r]) =>
        (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy') &&
        asList(r.Properties?.Roles as unknown[]).some((role) => (role as { Ref?: string }).Ref === roleId),
    );
    const role = this.resolved.resource(roleId).Properties ?? {};
    const inline = asList(role.Policies as { PolicyName: string; PolicyDocument: unknown }[]).map((p) => ({
      name: p.PolicyName,
      policy: this.resolved.resolve(p.PolicyDocument) as PolicyDocument,
    }));
    return [
      ...inline,
      ...attached.map(([id, r]) => ({
        name: id,
        policy: this.resolved.resolve(r.Properties?.PolicyDocument) as PolicyDocument,
      })),
    ];
  }

  /** The identity policies of a role in the stack, by ARN (e.g. the credential-reader role). */
  roleIdentity(roleArn: string): { name: string; policy: PolicyDocument }[] {
    const id = this.resolved
      .idsOf('AWS::IAM::Role')
      .find((each) => this.resolved.getAtt(each, 'Arn') === roleArn);
    if (!id) throw new Error(`no role ${roleArn} in the stack`);
    return this.rolePolicies(id);
  }

  /** Role, policies and environment of a runtime function. */
  functionIdentity(fn: HandlerName): FunctionIdentity {
    const runtimeFunction = this.synth.stack.runtime.functions[fn];
    const fnId = logicalId(runtimeFunction.function);
    const props = this.resolved.resource(fnId).Properties ?? {};
    const roleId = (props.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const variables = (props.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables;
    return {
      fn,
      functionArn: this.resolved.getAtt(fnId, 'Arn'),
      roleArn: this.resolved.getAtt(roleId, 'Arn'),
      policies: this.rolePolicies(roleId),
      environment: Object.fromEntries(
        Object.entries(variables ?? {}).map(([key, value]) => [key, String(this.resolved.resolve(value))]),
      ),
      bundledConstants: runtimeFunction.bundledConstants,
    };
  }

  /** The trust policy of a role in the stack, by ARN. */
  trustPolicy(roleArn: string): PolicyDocument | undefined {
    for (const id of this.resolved.idsOf('AWS::IAM::Role'))
      if (this.resolved.getAtt(id, 'Arn') === roleArn)
        return this.resolved.resolve(
          this.resolved.resource(id).Properties?.AssumeRolePolicyDocument,
        ) as PolicyDocument;
    return undefined;
  }

  /** The resource policy that applies to `resourceArn`, if the stack gives it one. */
  resourcePolicyFor(resourceArn: string): PolicyDocument | undefined {
    const trust = this.trustPolicy(resourceArn);
    if (trust) return trust;
    const statements: Statement[] = [];
    for (const [, r] of this.resolved.resources) {
      const p = r.Properties ?? {};
      const targets =
        r.Type === 'AWS::SNS::TopicPolicy'
          ? asList(p.Topics as unknown[])
          : r.Type === 'AWS::SecretsManager::ResourcePolicy'
            ? [p.SecretId]
            : [];
      if (targets.some((target) => this.resolved.resolve(target) === resourceArn))
        statements.push(...(this.resolved.resolve(p.PolicyDocument) as PolicyDocument).Statement);
    }
    for (const id of this.resolved.idsOf('AWS::KMS::Key'))
      if (this.resolved.getAtt(id, 'Arn') === resourceArn)
        statements.push(
          ...(this.resolved.resolve(this.resolved.resource(id).Properties?.KeyPolicy) as PolicyDocument)
            .Statement,
        );
    return statements.length > 0 ? { Version: '2012-10-17', Statement: statements } : undefined;
  }

  /**
   * The function's resource policy, built from its `AWS::Lambda::Permission`s as Lambda does
   * (https://docs.aws.amazon.com/lambda/latest/dg/access-control-resource-based.html): `SourceArn` becomes
   * an `ArnLike aws:SourceArn` condition, `SourceAccount` a `StringEquals aws:SourceAccount` one.
   */
  lambdaResourcePolicy(functionArn: string): PolicyDocument {
    const statements: Statement[] = [];
    for (const id of this.resolved.idsOf('AWS::Lambda::Permission')) {
      const p = this.resolved.resolve(this.resolved.resource(id).Properties) as Record<string, string>;
      if (p.FunctionName !== functionArn) continue;
      const principal = p.Principal ?? '';
      statements.push({
        Sid: id,
        Effect: 'Allow',
        Action: p.Action ?? 'lambda:InvokeFunction',
        Resource: functionArn,
        Principal: principal.endsWith('.amazonaws.com') ? { Service: principal } : { AWS: principal },
        Condition: {
          ...(p.SourceArn ? { ArnLike: { 'aws:SourceArn': p.SourceArn } } : {}),
          ...(p.SourceAccount ? { StringEquals: { 'aws:SourceAccount': p.SourceAccount } } : {}),
        },
      });
    }
    return { Version: '2012-10-17', Statement: statements };
  }

  /** Tags of the stack's secrets, by name. */
  secretTags(): Map<string, Record<string, string>> {
    const tags = new Map<string, Record<string, string>>();
    for (const id of this.resolved.idsOf('AWS::SecretsManager::Secret')) {
      const list = asList(this.resolved.resource(id).Properties?.Tags as { Key: string; Value: unknown }[]);
      tags.set(
        this.resolved.nameOf(id),
        Object.fromEntries(list.map((t) => [t.Key, String(this.resolved.resolve(t.Value))])),
      );
    }
    return tags;
  }
}

export { ACCOUNT };
