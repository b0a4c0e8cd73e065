import { describe, expect, it } from 'vitest';
import { RESULT_TITLES } from '../../shared/approvals/index.ts';
import { withStoreOverrides } from '../support/store-overrides.ts';
import { useSfnWire } from './sfn-wire.ts';
import { approvalScenario, BOSS, decide, headingOf, nonceOf, type Scenario, store } from './support.ts';

const wire = useSfnWire();

const WITHDRAWN = 'has been withdrawn from the workflow since it was requested';

async function disableWorkflow(s: Scenario) {
  const head = (await store.getWorkflowHead(s.run.owner, s.run.workflowId))!;
  await store.updateWorkflowHead(head, { ...head, enabled: false, updatedAt: new Date(0).toISOString() });
}

/**
 * The scenario's store, except that the workflow's head and versions cannot be looked up on their own (the page
 * reads the head with the approval, but then cannot read the version: whether the action is granted is unknown).
 */
const headLookupFails = withStoreOverrides(store, {
  getWorkflowHead: async () => Promise.reject(new Error('lookup failed')),
  getWorkflowVersion: async () => Promise.reject(new Error('lookup failed')),
});

describe('Approval pages after the action was withdrawn', () => {
  it('promises neither way when whether the action is still granted cannot be told', async () => {
    // Prepare
    const s = await approvalScenario(wire, [BOSS], headLookupFails);

    // Act
    const page = await (await s.app.request(s.linkOf(BOSS).path)).text();
    const decided = await decide(s, 'approve');
    const result = await decided.text();

    // Assess: recorded, and neither "performs it" nor "it will not run" is promised
    expect(page).not.toContain(WITHDRAWN);
    expect(headingOf(result)).toBe(RESULT_TITLES.approved_unchecked);
    expect(result).not.toContain('It will not run');
    expect(result).not.toContain('performs it.');
    expect((await store.getApproval(s.approvalId))?.status).toBe('approved');
  });

  it('says nothing of withdrawal while the action is still granted', async () => {
    // Prepare
    const s = await approvalScenario(wire);

    // Act
    const page = await (await s.app.request(s.linkOf(BOSS).path)).text();
    const decided = await decide(s, 'approve');

    // Assess
    expect(page).not.toContain(WITHDRAWN);
    expect(headingOf(await decided.text())).toBe(RESULT_TITLES.approved);
  });

  it('warns on the page and, after approval, says the action will not run (workflow disabled)', async () => {
    // Prepare
    const s = await approvalScenario(wire);
    await disableWorkflow(s);

    // Act
    const page = await (await s.app.request(s.linkOf(BOSS).path)).text();
    const response = await s.app.request(`/approvals/${s.approvalId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        t: s.linkOf(BOSS).token,
        nonce: nonceOf(page),
        decision: 'approve',
      }).toString(),
    });
    const result = await response.text();

    // Assess
    expect(page).toContain(WITHDRAWN);
    expect(response.status).toBe(200);
    expect(headingOf(result)).toBe(RESULT_TITLES.approved_withdrawn);
    expect(result).toContain('It will not run');
    expect(result).not.toContain('performs it');
  });
});
