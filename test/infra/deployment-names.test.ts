/**
 * Two deployments in one account and Region share neither credentials nor metrics: each stack gets its own
 * credential secret prefix (the credential-reader role's resource pattern) and metrics namespace (its functions'
 * POWERTOOLS_METRICS_NAMESPACE, read by its alarms), and the default stack keeps the names it always had.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { DEFAULT_STACK_NAME } from '../../infra/constructs/deployment-names.ts';
import { COMMON_ENV, ENV } from '../../infra/constructs/env-names.ts';
import { settingsFromContext } from '../../infra/context.ts';
import { WorkflowRuntimeStack } from '../../infra/workflow-runtime-stack.ts';
import { fastApp, flatTemplate, logicalId } from './synth.ts';

type Statement = { Action: string | string[]; Resource: string | string[] };

type Names = ReturnType<typeof namesOf>;

/** What one stack's deployment is named by: prefixes, namespaces, reader patterns, alarm namespaces. */
function namesOf(stack: WorkflowRuntimeStack) {
  const template = flatTemplate(Template.fromStack(stack));
  const variables = Object.values(template.findResources('AWS::Lambda::Function')).map(
    (fn) => fn.Properties.Environment.Variables as Record<string, string>,
  );
  const reader = `\${${logicalId(stack.runtime.credentialReader.role)}}`;
  const readable = Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as string[]).includes(reader))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[])
    .filter((statement) => [statement.Action].flat().includes('secretsmanager:GetSecretValue'))
    .flatMap((statement) => [statement.Resource].flat());
  const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'))
    .map((alarm) => alarm.Properties.Namespace as string | undefined)
    .filter((namespace) => namespace !== undefined && !namespace.startsWith('AWS/'));
  return {
    prefixes: new Set(variables.flatMap((each) => each[ENV.credentialSecretPrefix] ?? [])),
    namespaces: new Set(variables.map((each) => each[COMMON_ENV.powertoolsMetricsNamespace])),
    // The literal part of `…:secret:<prefix>${aws:PrincipalTag/wf-owner}/*`.
    readerPrefixes: readable.map((arn) => /:secret:(.*)\$\{aws:PrincipalTag\/wf-owner\}\/\*$/.exec(arn)?.[1]),
    alarmNamespaces: new Set(alarms),
  };
}

describe('Deployment names', () => {
  it('differ between two stacks of one account; the default stack keeps wf/ and WfRuntime', () => {
    const app = fastApp();
    // Both stacks exist before the first synthesis.
    const stacks = [
      new WorkflowRuntimeStack(app, DEFAULT_STACK_NAME),
      new WorkflowRuntimeStack(app, 'staging'),
    ];
    const [production, staging] = stacks.map(namesOf) as [Names, Names];

    expect([...production.prefixes]).toEqual(['wf/']);
    expect([...production.namespaces]).toEqual(['WfRuntime']);
    expect(production.readerPrefixes).toEqual(['wf/']);
    expect([...staging.prefixes]).toEqual(['wf-staging/']);
    expect([...staging.namespaces]).toEqual(['WfRuntime/staging']);
    expect(staging.readerPrefixes).toEqual(['wf-staging/']);
    // Disjoint: neither reader pattern's literal part is a prefix of the other's, so no owner tag value makes
    // one stack's pattern match the other's secrets.
    const [mine = '', theirs = ''] = [production.readerPrefixes[0], staging.readerPrefixes[0]];
    expect(mine.startsWith(theirs) || theirs.startsWith(mine)).toBe(false);
    // Each stack's runtime-metric alarms read its own functions' namespace.
    expect(production.alarmNamespaces.size).toBeGreaterThan(0);
    expect([...production.alarmNamespaces]).toEqual(['WfRuntime']);
    expect([...staging.alarmNamespaces]).toEqual(['WfRuntime/staging']);
  });

  it('are taken from context when given (upgrading a non-default stack whose secrets live under wf/)', () => {
    const context = { stackName: 'staging', credentialSecretPrefix: 'wf/', metricsNamespace: 'WfRuntime' };
    const { stackName, runtime } = settingsFromContext(new App({ context }).node);
    expect(runtime).toMatchObject({ credentialSecretPrefix: 'wf/', metricsNamespace: 'WfRuntime' });
    const names = namesOf(new WorkflowRuntimeStack(fastApp(), stackName, { runtime }));
    expect([[...names.prefixes], [...names.namespaces]]).toEqual([['wf/'], ['WfRuntime']]);
  });
});
