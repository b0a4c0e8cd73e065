/**
 * The stack the IAM check evaluates: the default runtime, in a fixed account and region, with alert topics and
 * loopback as an internal host.
 */

import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { WorkflowRuntimeStack } from '../../infra/workflow-runtime-stack.ts';
import { fastApp, type SynthesizedRuntime } from '../infra/synth.ts';
import { ACCOUNT } from './template.ts';

export const REGION = 'eu-west-1';
export const ALERT_TOPIC = `arn:aws:sns:${REGION}:${ACCOUNT}:wf-alerts`;
export const DECLARED_TOPIC = `arn:aws:sns:${REGION}:${ACCOUNT}:team-oncall`;
export const UNDECLARED_TOPIC = `arn:aws:sns:${REGION}:${ACCOUNT}:someone-elses-topic`;

let synthesized: SynthesizedRuntime | undefined;

/** The IAM check's stack, synthesized once per process and shared by its callers: read it, never add to it. */
export function synthForIam(): SynthesizedRuntime {
  synthesized ??= synthesizeForIam();
  return synthesized;
}

function synthesizeForIam(): SynthesizedRuntime {
  const app = fastApp();
  const env = { account: ACCOUNT, region: REGION };
  const topics = new Stack(app, 'Topics', { env });
  const stack = new WorkflowRuntimeStack(app, 'WfTest', {
    env,
    runtime: {
      alertTopic: sns.Topic.fromTopicArn(topics, 'Alerts', ALERT_TOPIC),
      alertTopics: [sns.Topic.fromTopicArn(topics, 'Oncall', DECLARED_TOPIC)],
      // The flow's HTTP destination and actions stand for internal services on loopback: their POSTs run
      // without approval, so the credential they use is resolved (and its grant exercised).
      internalHosts: ['127.0.0.1'],
      // The flow's secrets are named under `wf/` (the local stack's prefix); a stack not named WfRuntime would
      // otherwise derive its own (`wf-WfTest/`, infra/constructs/deployment-names.ts).
      credentialSecretPrefix: 'wf/',
      // The flow's approver must be declared for its owner (flow.ts OWNER), or the API refuses its workflow.
      approvers: [{ email: 'ops@example.com', owners: ['123456789012:user:alice'] }],
      // Owner notices go out too (failed, denied, expired runs), so their publishes are simulated.
      ownerNotices: [{ owner: '123456789012:role:wf-iam-test', email: 'owner@example.com' }],
      // External runs: an engine the egress guard refuses (loopback), so no request leaves the process.
      externalEngines: { 'http-runtime': { enabled: true, settings: { endpoint: 'http://127.0.0.1:9' } } },
    },
  });
  return { app, stack, template: Template.fromStack(stack) };
}
