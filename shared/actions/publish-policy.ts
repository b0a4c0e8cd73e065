/**
 * External publishing, decided per call. A request with an unsafe method (POST, PUT, PATCH, DELETE) to a host
 * outside the deployment sends or changes something outside the organisation: it needs a human's approval
 * whatever the workflow's gate says, and whatever a connector's author declared. Only the deployment's
 * operator can name internal hosts (CDK prop `internalHosts`, the local stack's `internalHosts`), never a
 * workflow. Any doubt (an unparsable URL) counts as outside: fail closed.
 */

/** The operator's policy: host names (exact, case-insensitive) that are part of the deployment. */
export type PublishPolicy = { internalHosts?: readonly string[] };

/** Methods that send or change something (RFC 9110 §9.2.1: everything but the safe GET, HEAD, OPTIONS, TRACE). */
export const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The host name of a URL, lowercased, brackets kept for IPv6; undefined when it does not parse. */
function hostOf(url: string | URL): string | undefined {
  try {
    return (typeof url === 'string' ? new URL(url) : url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** True when `url`'s host is one of the operator's internal hosts. */
function isInternal(url: string | URL, policy: PublishPolicy): boolean {
  const host = hostOf(url);
  return (
    host !== undefined && (policy.internalHosts ?? []).some((internal) => internal.toLowerCase() === host)
  );
}

/** True when `method` to `url` sends something outside the deployment under `policy`. */
export function sendsOutside(method: string, url: string | URL, policy: PublishPolicy = {}): boolean {
  if (!UNSAFE_METHODS.has(method.toUpperCase())) return false;
  return !isInternal(url, policy);
}

/**
 * Where a redirect may take a request that sends something, besides its own origin: the classification
 * (and any approval) was for the URL the call named, so an internal call may only move among the internal
 * hosts, and a call outside the deployment nowhere else (the egress guard refuses: `redirect_off_origin`).
 */
export function sendingRedirectHosts(url: string | URL, policy: PublishPolicy = {}): string[] {
  return isInternal(url, policy) ? [...(policy.internalHosts ?? [])] : [];
}

/** The operator's internal hosts from a comma-separated setting (`WF_INTERNAL_HOSTS`); blanks dropped. */
export function parseInternalHosts(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter((host) => host !== '');
}
