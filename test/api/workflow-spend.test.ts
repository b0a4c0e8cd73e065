import { describe, expect, it } from 'vitest';
import { apiHarness, definition } from './helpers.ts';

describe('GET /v1/workflows/{id}/spend', () => {
  it("answers today's (UTC, by the API's clock) spend and the latest version's per-day ceiling", async () => {
    // Prepare
    const h = apiHarness();
    const created = await h.alice.post(
      '/v1/workflows',
      definition({ budget: { maxUsdPerRun: 1, maxUsdPerDay: 5, maxTurns: 10 } }),
    );
    const id = created.body.workflow.workflowId as string;

    // Act
    const reply = await h.alice.get(`/v1/workflows/${id}/spend`);

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      workflowId: id,
      day: '2026-11-30',
      totalUsd: 0,
      reservedUsd: 0,
      ceilingUsd: 5,
    });
  });

  it('answers null for a workflow without a per-day ceiling', async () => {
    const h = apiHarness();
    const id = (await h.alice.post('/v1/workflows', definition())).body.workflow.workflowId as string;
    expect((await h.alice.get(`/v1/workflows/${id}/spend`)).body.ceilingUsd).toBeNull();
  });

  it("answers another owner's workflow like a missing one", async () => {
    const h = apiHarness();
    const id = (await h.alice.post('/v1/workflows', definition())).body.workflow.workflowId as string;
    const foreign = await h.bob.get(`/v1/workflows/${id}/spend`);
    const missing = await h.bob.get('/v1/workflows/wf_doesnotexist0000000000000000/spend');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
  });
});
