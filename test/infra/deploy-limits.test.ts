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

  it('refuses a joined list that would pass 4 KB of a function environment, naming the variable', () => {
    // ~30 bytes a host: 150 of them are ~4.5 KB in WF_INTERNAL_HOSTS alone (turn, deliver, approval-http).
    const hosts = Array.from({ length: 150 }, (_, i) => `service-${i}.internal.example.com`);
    expect(() => synthRuntime({ internalHosts: hosts })).toThrow(
      new RegExp(
        `environment variables take about \\d+ bytes; Lambda allows ${LAMBDA_ENVIRONMENT_BYTES}.*WF_INTERNAL_HOSTS`,
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
