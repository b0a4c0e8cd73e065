/**
 * Who may start runs besides the API, evaluated with iam-simulate on the synthesized template: EventBridge
 * Scheduler assuming its execution role (trust policy) and invoking start-run with it, and EventBridge rules
 * invoking start-run (the function's resource policy). Each request carries the context keys the service
 * sets: Scheduler's `aws:SourceArn` is the schedule GROUP's ARN
 * (https://docs.aws.amazon.com/scheduler/latest/UserGuide/cross-service-confused-deputy-prevention.html),
 * EventBridge's is the rule's ARN (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-use-resource-based.html#eb-lambda-permissions).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { logicalId } from '../infra/synth.ts';
import { StackPolicies } from './policies.ts';
import { decide } from './simulate.ts';
import { REGION, synthForIam } from './stack.ts';
import { ACCOUNT } from './template.ts';

const OTHER_ACCOUNT = '210987654321';
let policies: StackPolicies;
let schedulerRoleArn: string;
let groupArn: string;
let startRunArn: string;
let busName: string;

beforeAll(() => {
  const synth = synthForIam();
  policies = new StackPolicies(synth);
  const triggers = synth.stack.runtime.triggers;
  schedulerRoleArn = policies.resolved.getAtt(logicalId(triggers.schedulerRole), 'Arn');
  groupArn = policies.resolved.getAtt(logicalId(triggers.scheduleGroup), 'Arn');
  busName = policies.resolved.nameOf(logicalId(triggers.eventBus));
  startRunArn = policies.functionIdentity('start-run').functionArn;
});

const assumeSchedulerRole = (sourceArn: string, sourceAccount = ACCOUNT) =>
  decide({
    principal: 'scheduler.amazonaws.com',
    action: 'sts:AssumeRole',
    resource: schedulerRoleArn,
    context: { 'aws:SourceArn': sourceArn, 'aws:SourceAccount': sourceAccount },
    resourcePolicy: policies.trustPolicy(schedulerRoleArn),
  });

const ruleInvokes = (ruleArn: string, sourceAccount = ACCOUNT) =>
  decide({
    principal: 'events.amazonaws.com',
    action: 'lambda:InvokeFunction',
    resource: startRunArn,
    context: { 'aws:SourceArn': ruleArn, 'aws:SourceAccount': sourceAccount },
    resourcePolicy: policies.lambdaResourcePolicy(startRunArn),
  });

describe('Trust: EventBridge Scheduler', () => {
  it('may assume its execution role for a schedule of the runtime group (source ARN = the group ARN)', async () => {
    expect(groupArn).toBe(
      `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule-group/${groupArn.split('/').at(-1)}`,
    );
    expect(await assumeSchedulerRole(groupArn)).toBe('Allowed');
  });

  it.each([
    ['another group', () => groupArn.replace(/schedule-group\/.+$/, 'schedule-group/default')],
    ['another account', () => groupArn.replace(ACCOUNT, OTHER_ACCOUNT), OTHER_ACCOUNT],
  ])('may not assume it for %s', async (_name, sourceArn, account = ACCOUNT) => {
    expect(await assumeSchedulerRole(sourceArn(), account)).toBe('ImplicitlyDenied');
  });

  it('invokes start-run with that role, and nothing else', async () => {
    const roleId = logicalId(policies.synth.stack.runtime.triggers.schedulerRole);
    const session = `arn:aws:sts::${ACCOUNT}:assumed-role/${schedulerRoleArn.split('/').at(-1)}/scheduler`;
    const invoke = (resource: string) =>
      decide({
        principal: session,
        action: 'lambda:InvokeFunction',
        resource,
        identityPolicies: policies.rolePolicies(roleId),
        resourcePolicy: policies.lambdaResourcePolicy(resource),
      });
    expect(await invoke(startRunArn)).toBe('Allowed');
    expect(await invoke(policies.functionIdentity('turn').functionArn)).toBe('ImplicitlyDenied');
  });
});

describe('Trust: EventBridge rules', () => {
  const rule = (name: string, bus?: string) =>
    `arn:aws:events:${REGION}:${ACCOUNT}:rule/${bus ?? busName}/${name}`;

  it('lets a runtime rule (prefix wf-, on the runtime bus) invoke start-run', async () => {
    expect(await ruleInvokes(rule('wf-wf_0123456789abcdef'))).toBe('Allowed');
  });

  it.each([
    ['a rule without the prefix', () => rule('other-rule')],
    ['a rule on the default bus', () => `arn:aws:events:${REGION}:${ACCOUNT}:rule/wf-wf_0123`],
    ['a rule on another bus', () => rule('wf-wf_0123', 'someone-elses-bus')],
  ])('does not let %s invoke it', async (_name, ruleArn) => {
    expect(await ruleInvokes(ruleArn())).toBe('ImplicitlyDenied');
  });

  it('does not let a runtime-looking rule of another account invoke it', async () => {
    const foreign = rule('wf-wf_0123').replace(ACCOUNT, OTHER_ACCOUNT);
    expect(await ruleInvokes(foreign, OTHER_ACCOUNT)).toBe('ImplicitlyDenied');
  });
});

describe('Trust: the jobs sweep rule', () => {
  const sweepInvokes = (ruleArn: string) => {
    const sweepArn = policies.functionIdentity('jobs-sweep').functionArn;
    return decide({
      principal: 'events.amazonaws.com',
      action: 'lambda:InvokeFunction',
      resource: sweepArn,
      context: { 'aws:SourceArn': ruleArn, 'aws:SourceAccount': ACCOUNT },
      resourcePolicy: policies.lambdaResourcePolicy(sweepArn),
    });
  };

  it('lets its schedule rule invoke jobs-sweep, and no other rule', async () => {
    const synth = synthForIam();
    const ruleArn = policies.resolved.getAtt(logicalId(synth.stack.runtime.jobsSweep.rule), 'Arn');
    expect(await sweepInvokes(ruleArn)).toBe('Allowed');
    expect(await sweepInvokes(`arn:aws:events:${REGION}:${ACCOUNT}:rule/another-rule`)).not.toBe('Allowed');
  });
});
