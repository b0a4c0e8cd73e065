/** The SSRF-safe egress guard: every outbound request of the product goes through it (docs/egress.md). */
export {
  type AddressClassification,
  classifyAddress,
  isLoopbackAddress,
  normalizeAddress,
} from './address.ts';
export { BLOCKED_AWS_SERVICES } from './aws-hosts.ts';
export { checkUrl, type UrlCheck } from './check.ts';
export {
  ADDRESS_DENY_REASONS,
  type AddressDenyReason,
  DENY_REASONS,
  type DenyReason,
  EgressDeniedError,
  EgressError,
  type EgressErrorContext,
  EgressLimitError,
  EgressNetworkError,
  EgressPolicyError,
  type EgressReason,
  LIMIT_REASONS,
  type LimitReason,
  type NetworkReason,
} from './errors.ts';
export { ALLOWED_METHODS, type GuardedFetchInit, type GuardRequestInit, guardedFetch } from './fetch.ts';
export {
  FORBIDDEN_REQUEST_HEADER_PREFIXES,
  FORBIDDEN_REQUEST_HEADERS,
  isForbiddenRequestHeader,
} from './headers.ts';
export { BUILTIN_BLOCKED_HOSTS, builtinBlockRule, matchesHostPattern } from './hosts.ts';
export {
  EGRESS_DEFAULTS,
  type EgressPolicy,
  type ResolvedAddress,
  type Resolver,
  systemResolver,
} from './policy.ts';
export { createEgress } from './port.ts';
