import { describe, expect, it } from 'vitest';
import {
  environmentBytes,
  FILTER_POLICIES_PER_TOPIC,
  LAMBDA_ENVIRONMENT_BYTES,
} from '../../infra/constructs/deploy-limits.ts';
import { synthRuntime } from './synth.ts';

const approvers = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    email: `approver-${i}@example.com`,
    owners: [`123456789012:role:team-${i % 5}`],
  }));

describe('Construct: DeployLimits', () => {
  it('lets the default stack and a realistic approver list synthesize', () => {
    expect(() => synthRuntime({ approvers: approvers(20) })).not.toThrow();
  });

  it('refuses approvers whose joined list would pass 4 KB of a function environment, naming the variable', () => {
    // ~58 bytes an approver and their owner: 70 of them are ~4 KB in WF_APPROVER_OWNERS alone.
    expect(() => synthRuntime({ approvers: approvers(70) })).toThrow(
      new RegExp(
        `environment variables take about \\d+ bytes; Lambda allows ${LAMBDA_ENVIRONMENT_BYTES}.*WF_APPROVER_OWNERS`,
      ),
    );
  });

  it('refuses more filter-policy subscriptions on one topic than SNS allows by default', () => {
    const owners = Array.from({ length: FILTER_POLICIES_PER_TOPIC + 1 }, (_, i) => ({
      owner: `123456789012:user:u${i}`,
      email: `owner-${i}@example.com`,
    }));
    expect(() => synthRuntime({ ownerNotices: owners })).toThrow(
      /would get 201 subscriptions with a filter policy; SNS allows 200 per topic/,
    );
    expect(() => synthRuntime({ ownerNotices: owners.slice(0, FILTER_POLICIES_PER_TOPIC) })).not.toThrow();
  });

  it('counts a variable as Lambda holds it, a deploy-time value at its bound', () => {
    expect(environmentBytes({})).toBe(2);
    expect(environmentBytes({ A: 'bc' })).toBe('{"A":"bc"}'.length);
    expect(environmentBytes({ A: 'b', C: 'd' })).toBe('{"A":"b","C":"d"}'.length);
    expect(environmentBytes({ A: { 'Fn::Join': [',', ['x', { Ref: 'T' }]] } })).toBe(
      '{"A":""}'.length + 2 + 200,
    );
  });
});
