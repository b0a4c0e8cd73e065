import { describe, expect, it } from 'vitest';
import { crossSiteReason, pageOrigin } from '../../shared/approvals-http/same-origin.ts';
import { useSfnWire } from './sfn-wire.ts';
import {
  approvalScenario,
  BOSS,
  headingOf,
  nonceOf,
  PUBLIC_BASE,
  type Scenario,
  snapshot,
} from './support.ts';

const wire = useSfnWire();

async function postWith(s: Scenario, headers: Record<string, string>) {
  const link = s.linkOf(BOSS);
  const nonce = nonceOf(await (await s.app.request(link.path)).text());
  return s.app.request(`/approvals/${s.approvalId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ t: link.token, nonce, decision: 'approve' }).toString(),
  });
}

describe('Function: crossSiteReason', () => {
  const origin = pageOrigin(`${PUBLIC_BASE}/stage`);

  it.each([
    [{}, undefined],
    [{ origin: PUBLIC_BASE }, undefined],
    [{ origin: PUBLIC_BASE.toUpperCase() }, undefined],
    [{ origin: PUBLIC_BASE, 'sec-fetch-site': 'same-origin' }, undefined],
    [{ origin: 'https://evil.example' }, 'origin_mismatch'],
    [{ origin: 'null' }, 'origin_mismatch'],
    [{ origin: 'null', 'sec-fetch-site': 'same-origin' }, undefined],
    [{ origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' }, 'origin_mismatch'],
    [{ origin: 'http://127.0.0.1:8788' }, 'origin_mismatch'],
    [{ 'sec-fetch-site': 'cross-site' }, 'cross_site_fetch'],
    [{ 'sec-fetch-site': 'same-site' }, 'cross_site_fetch'],
    [{ 'sec-fetch-site': 'none' }, 'cross_site_fetch'],
  ])('judges %j as %s', (headers, expected) => {
    // Act
    const reason = crossSiteReason(new Headers(headers as Record<string, string>), origin);

    // Assess
    expect(reason).toBe(expected);
  });
});

describe('POST /approvals/:approvalId from another site', () => {
  it.each([
    { origin: 'https://evil.example' },
    { origin: 'null' },
    { 'sec-fetch-site': 'cross-site' },
    { origin: PUBLIC_BASE, 'sec-fetch-site': 'same-site' },
  ])(
    'refuses a valid link and nonce posted with %j: 403, nothing recorded, nothing resumed',
    async (headers) => {
      // Prepare
      const s = await approvalScenario(wire);
      const before = await snapshot(s.run.runId, s.approvalId);

      // Act
      const response = await postWith(s, headers);

      // Assess
      expect(response.status).toBe(403);
      expect(headingOf(await response.text())).toBe('Request refused');
      expect(await snapshot(s.run.runId, s.approvalId)).toEqual(before);
      expect(wire.calls).toHaveLength(0);
      expect(s.logger.lines.join('\n')).not.toContain(s.linkOf(BOSS).token);
    },
  );

  it('accepts the same form from the page own origin, as a browser sends it', async () => {
    // Prepare
    const s = await approvalScenario(wire);

    // Act
    const response = await postWith(s, { origin: PUBLIC_BASE, 'sec-fetch-site': 'same-origin' });

    // Assess
    expect(response.status).toBe(200);
    expect((await snapshot(s.run.runId, s.approvalId)).approval).toMatchObject({ status: 'approved' });
  });
});
