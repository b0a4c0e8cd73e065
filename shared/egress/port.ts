/**
 * `createEgress`: the `EgressPort` adapter the rest of the product uses, on top of the guard. The request's
 * `allowedHosts` narrow the policy's (intersection), and the decoded body text is returned within the cap.
 */
import type { EgressPort, EgressRequest, EgressResponse } from '../core/ports.ts';
import { fetchWithPolicy, type GuardRequestInit } from './fetch.ts';
import { bindCredentials } from './headers.ts';
import { type EgressPolicy, narrowPolicy, resolvePolicy } from './policy.ts';

/** The product's egress port: every outbound request of an action goes through it. */
export function createEgress(policy: EgressPolicy = {}): EgressPort {
  const resolved = resolvePolicy(policy);
  return {
    async request(request: EgressRequest): Promise<EgressResponse> {
      const effective =
        request.allowedHosts === undefined ? resolved : narrowPolicy(resolved, request.allowedHosts);
      const init: GuardRequestInit = { method: request.method };
      if (request.headers !== undefined) init.headers = request.headers;
      if (request.body !== undefined) init.body = request.body;
      if (request.unsafeRedirectHosts !== undefined) init.unsafeRedirectHosts = request.unsafeRedirectHosts;
      const response = await fetchWithPolicy(
        request.url,
        init,
        effective,
        bindCredentials(request.credentialHeaders),
      );
      const body = await response.text();
      return { status: response.status, headers: headersRecord(response.headers), body, url: response.url };
    },
  };
}

/** Response headers as a record; repeated headers (Set-Cookie included) are joined with ", ". */
function headersRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of headers) {
    record[name] = record[name] === undefined ? value : `${record[name]}, ${value}`;
  }
  return record;
}
