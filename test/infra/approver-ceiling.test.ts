/**
 * How many approvers a deployment may declare. The declarations are compiled into the four functions that check
 * them (infra/constructs/approver-bundling.ts), not carried in their 4 KB environment, so the ceiling is SNS's
 * 200 filter policies per topic (one subscription per approver) and CloudFormation's 500 resources, both
 * refused at synth (infra/constructs/deploy-limits.ts).
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { APPROVER_HANDLERS } from '../../infra/constructs/approver-bundling.ts';
import {
  CLOUDFORMATION_RESOURCES,
  CLOUDFORMATION_TEMPLATE_BYTES,
  environmentBytes,
  FILTER_POLICIES_PER_TOPIC,
  LAMBDA_ENVIRONMENT_BYTES,
  templateSizeProblem,
} from '../../infra/constructs/deploy-limits.ts';
import { ENV } from '../../infra/constructs/env-names.ts';
import { HANDLER_NAMES } from '../../infra/constructs/state-names.ts';
import { WorkflowRuntimeStack } from '../../infra/workflow-runtime-stack.ts';
import { declaredApprovers, parseApproverOwners } from '../../shared/notify/reach.ts';
import { fastApp, type SynthesizedRuntime, synthRuntime } from './synth.ts';

const OWNERS = 20;
const owner = (i: number) => `123456789012:role:team-${i % OWNERS}`;
/** `count` approvers across 20 owners, each declared for one owner (the tenth also for every other owner). */
const approvers = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    email: `approver-${String(i).padStart(3, '0')}@example.com`,
    owners: i % 10 === 0 ? [owner(i), owner(i + 1), owner(i + 2)] : [owner(i)],
  }));

describe('Approver ceiling', () => {
  let synthesized: SynthesizedRuntime;
  beforeAll(() => {
    // Template.fromStack synthesizes: every deploy-limits check runs, and a failed one throws.
    synthesized = synthRuntime({ approvers: approvers(FILTER_POLICIES_PER_TOPIC) });
  });

  it('synthesizes 200 approvers across 20 owners, every function environment under 4 KB', () => {
    const functions = synthesized.template.findResources('AWS::Lambda::Function');
    expect(Object.keys(functions)).toHaveLength(HANDLER_NAMES.length);
    for (const fn of Object.values(functions)) {
      const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
      expect(variables[ENV.approverOwners]).toBeUndefined();
      expect(environmentBytes(variables)).toBeLessThan(LAMBDA_ENVIRONMENT_BYTES);
    }
    synthesized.template.resourceCountIs('AWS::SNS::Subscription', FILTER_POLICIES_PER_TOPIC);
  });

  it("keeps the 200 approvers' template under CloudFormation's 1 MB, and names a template over it", () => {
    // cdk writes the template with a one-space indent; infra/app.ts checks the written file's size.
    const bytes = Buffer.byteLength(JSON.stringify(synthesized.template.toJSON(), null, 1));
    expect(templateSizeProblem('WfRuntime', bytes)).toBeUndefined();
    expect(templateSizeProblem('WfRuntime', CLOUDFORMATION_TEMPLATE_BYTES + 1)).toMatch(
      /^stack WfRuntime: its template is 1000001 bytes; CloudFormation takes at most 1000000 .*fewer owners per approver/,
    );
  });

  it('bundles all 200 declarations into each approver-checking function, each for its own owners', () => {
    for (const handler of APPROVER_HANDLERS) {
      const text = synthesized.stack.runtime.functions[handler].bundledConstants[ENV.approverOwners];
      expect(text !== undefined && Buffer.byteLength(text) > LAMBDA_ENVIRONMENT_BYTES).toBe(true);
      const reach = declaredApprovers('sns', parseApproverOwners(text));
      expect(Object.keys(parseApproverOwners(text))).toHaveLength(FILTER_POLICIES_PER_TOPIC);
      expect(reach.reaches('approver-199@example.com', owner(199))).toBe(true);
      expect(reach.reaches('APPROVER-199@example.com', owner(199))).toBe(true);
      expect(reach.reaches('approver-199@example.com', owner(198))).toBe(false);
      expect(reach.reaches('approver-190@example.com', owner(192))).toBe(true);
      expect(reach.reaches('approver-200@example.com', owner(0))).toBe(false);
    }
  });

  it('refuses the 201st approver at synth: SNS allows 200 filter policies per topic by default', () => {
    expect(() => synthRuntime({ approvers: approvers(FILTER_POLICIES_PER_TOPIC + 1) })).toThrow(
      /would get 201 subscriptions with a filter policy; SNS allows 200 per topic/,
    );
  });

  it('refuses a stack over 500 resources (200 approvers and 200 owner-notice addresses)', () => {
    const ownerNotices = Array.from({ length: FILTER_POLICIES_PER_TOPIC }, (_, i) => ({
      owner: owner(i),
      email: `notices-${i}@example.com`,
    }));
    expect(() => synthRuntime({ approvers: approvers(FILTER_POLICIES_PER_TOPIC), ownerNotices })).toThrow(
      new RegExp(`would declare \\d+ resources; CloudFormation allows ${CLOUDFORMATION_RESOURCES}`),
    );
  });

  it("docs/deploy.md's room for subscriptions is 500 less the stack's own resources, rounded to tens", () => {
    const bare = synthRuntime().template;
    bare.resourceCountIs('AWS::SNS::Subscription', 0);
    const own = Math.round(Object.keys(bare.toJSON().Resources).length / 10) * 10;
    const doc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(doc).toContain(
      `the stack is about ${own} without subscriptions | about ${CLOUDFORMATION_RESOURCES - own} approver and owner-notice subscriptions together |`,
    );
  });

  it('refuses an approver added after the functions were bundled, naming the fix', () => {
    const app = fastApp();
    const stack = new WorkflowRuntimeStack(app, 'WfLate', { runtime: { approvers: approvers(2) } });
    stack.runtime.approvalNotices.addApprover('late@example.com', [owner(0)]);
    expect(() => app.synth()).toThrow(
      /approver declarations changed after api, workflow-write, request-approval, human-task were bundled.*Declare every approver in the runtime props/,
    );
  });
});
