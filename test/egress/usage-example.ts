/**
 * The usage example of docs/egress.md, verbatim between the markers (docs-example.test.ts runs it and
 * checks that the doc still contains it).
 */
import type { EgressPort } from '../../shared/core/ports.ts';
import { createEgress, type EgressPolicy } from '../../shared/egress/index.ts';

// docs:start
/** Built once per process: the runtime's own hosts are blocked even if a workflow allow-lists them. */
export function makeEgress(overrides: EgressPolicy = {}): EgressPort {
  return createEgress({
    allowedHosts: ['*.example.com'],
    blockedHosts: ['api.wf.example.com', 'approvals.wf.example.com'],
    ...overrides,
  });
}

/** An action: the API key is bound to its origin and never follows a redirect elsewhere. */
export async function getForecast(egress: EgressPort, baseUrl: string, apiKey: string, city: string) {
  const { origin, hostname } = new URL(baseUrl);
  const response = await egress.request({
    method: 'GET',
    url: `${origin}/v1/forecast?city=${encodeURIComponent(city)}`,
    headers: { accept: 'application/json' },
    credentialHeaders: [{ origin, name: 'X-API-Key', value: apiKey }],
    allowedHosts: [hostname],
  });
  if (response.status !== 200) throw new Error(`forecast failed with HTTP ${response.status}`);
  return JSON.parse(response.body) as { city: string; tempC: number };
}
// docs:end
