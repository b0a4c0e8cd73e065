/**
 * A job's `maxAttempts` under a grant narrowed after its admission (shared/jobs/effective.ts, docs/jobs.md):
 * the constraints it answers carry the lower of the admitted and the live `maxAttempts` once the grant's
 * version changed, the admitted one while it has not. The retry decision still counts against the admitted
 * value (shared/jobs/retry.ts reads the job's own constraints; settling a run does not read the grant). Pure.
 */
import { describe, expect, it } from 'vitest';
import { effectiveConstraints } from '../../shared/jobs/effective.ts';
import { GrantSpecSchema, type JobConstraints } from '../../shared/jobs/index.ts';
import { baseGrant } from './support.ts';

const admitted: JobConstraints = {
  tools: [{ name: 'current_time', gate: 'allow' }],
  model: 'claude-test',
  maxTurns: 5,
  budget: { maxUsdPerJob: 5 },
  timeoutSeconds: 3600,
  maxAttempts: 3,
  grantVersion: 1,
};
const job = { grantId: 'grant-1', constraints: admitted };
const live = (version: number, maxAttempts: number) => ({
  grantId: 'grant-1',
  version,
  revoked: false,
  grant: GrantSpecSchema.parse(baseGrant({ actions: ['current_time'], maxAttempts })),
});

describe('effectiveConstraints: maxAttempts', () => {
  it('is the lower of the admitted and the live grant once the grant changed', () => {
    expect(effectiveConstraints(job, live(2, 1)).maxAttempts).toBe(1);
    expect(effectiveConstraints(job, live(2, 2)).maxAttempts).toBe(2);
  });

  it('never rises above the admitted one', () => {
    expect(effectiveConstraints(job, live(2, 10)).maxAttempts).toBe(3);
  });

  it('is the admitted one while the grant is the version the job was admitted under', () => {
    expect(effectiveConstraints(job, live(1, 1))).toBe(admitted);
  });
});
