/**
 * `createGuardedHttp`: the production `ExternalHttpPort`, on the egress guard (shared/egress). Every hop is
 * checked, credential headers go to their bound origin only, and the body is capped while it streams. The
 * body is returned as bytes: artifacts are hashed exactly as received.
 */
import { fetchWithPolicy } from '../../egress/fetch.ts';
import { bindCredentials } from '../../egress/headers.ts';
import { type EgressPolicy, resolvePolicy } from '../../egress/policy.ts';
import type { ExternalHttpPort, ExternalHttpResponse } from '../ports.ts';

/** Outbound HTTP of adapters through the egress guard, under `policy` (its allow-list, ports and limits). */
export function createGuardedHttp(policy: EgressPolicy = {}): ExternalHttpPort {
  const resolved = resolvePolicy(policy);
  return {
    async send(request): Promise<ExternalHttpResponse> {
      const effective =
        request.maxResponseBytes === undefined
          ? resolved
          : { ...resolved, maxResponseBytes: request.maxResponseBytes };
      const init: RequestInit = { method: request.method, redirect: 'error' };
      if (request.headers !== undefined) init.headers = request.headers;
      if (request.body !== undefined) init.body = request.body;
      const response = await fetchWithPolicy(
        request.url,
        init,
        effective,
        bindCredentials(request.credentialHeaders),
      );
      const body = new Uint8Array(await response.arrayBuffer());
      const headers: Record<string, string> = {};
      for (const [name, value] of response.headers) headers[name] = value;
      return { status: response.status, headers, body };
    },
  };
}
