/**
 * The pure parts of a job's live limits: the lower of the snapshot and the live grant for each limit
 * (core/live-policy.ts), and the live grant's limits in an attempt's terms (jobs/spend.ts).
 */
import { describe, expect, it } from 'vitest';
import { delegatedPolicy, limitedDefinition } from '../../shared/core/live-policy.ts';
import { resolveJob } from '../../shared/jobs/resolve.ts';
import { GrantSpecSchema } from '../../shared/jobs/schemas.ts';
import { liveAttemptLimits } from '../../shared/jobs/spend.ts';
import { baseGrant } from './support.ts';

const models = { prices: { 'claude-sonnet-5-5': { input: 2, output: 10 } }, roles: {} } as never;
const grant = GrantSpecSchema.parse(
  baseGrant({ maxUsdPerJob: 5, maxUsdPerDay: 50, maxTurns: 5, jobTimeoutSeconds: 3600 }),
);
const record = { version: 1, grant } as const;
const admitted = resolveJob(
  { ...record, grantId: 'g', owner: 'o' } as never,
  { prompt: 'p' } as never,
  models,
);
const job = {
  constraints: admitted.constraints,
  definition: admitted.definition,
  previousRunIds: ['run-1'],
  spentUsd: 0.5,
  turnsUsed: 2,
};

describe('A job under its live grant', () => {
  it('has no live limits while the grant is the version it was admitted under', () => {
    expect(liveAttemptLimits(job, record)).toBeUndefined();
  });

  it("measures a narrowed grant's per-job limits less what the job's settled attempts spent", () => {
    const narrowed = { version: 2, grant: { ...grant, maxUsdPerJob: 1, maxTurns: 3, maxUsdPerDay: 2 } };
    expect(liveAttemptLimits(job, narrowed)).toEqual({
      models: ['claude-sonnet-5-5'],
      maxUsdPerRun: 0.5,
      maxTurns: 1,
      maxUsdPerDay: 2,
      runTimeoutSeconds: 3600,
    });
  });

  it('takes the lower of snapshot and live grant for each limit, a day ceiling the snapshot lacks included', () => {
    const snapshot = {
      ...admitted.definition,
      budget: { ...admitted.definition.budget, maxUsdPerDay: undefined },
    };
    const limits = {
      models: ['claude-sonnet-5-5'],
      maxUsdPerRun: 0.01,
      maxTurns: 9,
      maxUsdPerDay: 0.02,
      runTimeoutSeconds: 600,
    };
    const { definition, narrowed } = limitedDefinition(snapshot, limits);
    expect(narrowed).toBe(true);
    expect(definition.budget).toMatchObject({
      maxUsdPerRun: 0.01,
      maxTurns: 5,
      maxUsdPerDay: 0.02,
      runTimeoutSeconds: 600,
    });
    // A wider live grant leaves the snapshot as it is.
    const wider = { ...limits, maxUsdPerRun: 50, maxTurns: 50, maxUsdPerDay: 500, runTimeoutSeconds: 7200 };
    expect(limitedDefinition(admitted.definition, wider)).toEqual({
      definition: admitted.definition,
      narrowed: false,
    });
  });

  it("refuses everything once the job's model is withdrawn from the grant (fail closed)", () => {
    const live = {
      revoked: false as const,
      allowedActions: grant.actions,
      gates: grant.gates,
      limits: { models: ['claude-haiku-5-5'], maxUsdPerRun: 5, maxTurns: 5, runTimeoutSeconds: 3600 },
    };
    const policy = delegatedPolicy(admitted.definition, live);
    expect(policy.enabled).toBe(false);
    expect(policy.grant.size).toBe(0);
    expect(policy.refusal).toBe("the model 'claude-sonnet-5-5' was withdrawn from the delegation grant");
  });
});
