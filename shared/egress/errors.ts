/**
 * Errors of the egress guard. Every refusal is an `EgressError` with a machine-readable `reason`:
 * `EgressDeniedError` (the policy refuses the destination), `EgressLimitError` (a resource limit was hit),
 * `EgressNetworkError` (the allowed destination could not be reached) and `EgressPolicyError` (bad configuration).
 */

/** Why an address is refused (see docs/egress.md, "Denied ranges"). */
export const ADDRESS_DENY_REASONS = [
  'invalid_address',
  'unspecified',
  'loopback',
  'private_address',
  'cgnat',
  'link_local',
  'metadata',
  'multicast',
  'broadcast',
  'reserved',
  'documentation',
  'benchmarking',
  'ipv4_embedded',
  'discard',
  'not_global_unicast',
] as const;
export type AddressDenyReason = (typeof ADDRESS_DENY_REASONS)[number];

/** Why a request is refused before (or instead of) connecting. */
export const DENY_REASONS = [
  ...ADDRESS_DENY_REASONS,
  'invalid_url',
  'scheme',
  'userinfo',
  'method',
  'port',
  'host_not_allowed',
  'blocked_host',
  'dns_failure',
  'too_many_redirects',
  'invalid_redirect',
  'redirect_off_origin',
] as const;
export type DenyReason = (typeof DENY_REASONS)[number];

/** Which limit a response exceeded. */
export const LIMIT_REASONS = [
  'response_too_large',
  'too_many_encodings',
  'timeout',
  'headers_timeout',
  'headers_too_large',
] as const;
export type LimitReason = (typeof LIMIT_REASONS)[number];

export type NetworkReason = 'network';
export type EgressReason = DenyReason | LimitReason | NetworkReason;

/** Context carried by every egress error: never a credential value. */
export type EgressErrorContext = { host?: string; address?: string; url?: string; detail?: string };

/**
 * Whether the failed request may have reached its receiver: `false` when it never left (refused by the
 * guard, DNS failure, no connection: nothing was written to a socket), `true` once a connection to the
 * destination was open, so the request may have been received and acted on although no complete answer
 * came back (a timeout, a reset, an oversized response). A redirect answer is an answer that the first request
 * was received: a failure after it (a redirect refused or not followed, a later hop that never connects) is
 * `sent: true` with the first request's method.
 */
export type RequestDelivery = { sent: false } | { sent: true; method: string };

/** Base class of every error the guard throws; `reason` is stable and machine-readable. */
export class EgressError extends Error {
  readonly reason: EgressReason;
  readonly host: string | undefined;
  readonly address: string | undefined;
  readonly url: string | undefined;
  readonly detail: string | undefined;
  /** Set by the guard when the error ends a request that had a connection open or was answered (see RequestDelivery). */
  delivery: RequestDelivery = { sent: false };

  constructor(reason: EgressReason, message: string, context: EgressErrorContext = {}, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'EgressError';
    this.reason = reason;
    this.host = context.host;
    this.address = context.address;
    this.url = context.url;
    this.detail = context.detail;
  }
}

/** The policy refuses this destination (address class, scheme, host, port, redirect, DNS). */
export class EgressDeniedError extends EgressError {
  declare readonly reason: DenyReason;

  constructor(reason: DenyReason, context: EgressErrorContext = {}, cause?: unknown) {
    super(reason, describe('egress denied', reason, context), context, cause);
    this.name = 'EgressDeniedError';
  }
}

/** A response exceeded a limit (decoded size, stacked codings, overall deadline, headers timeout, header size). */
export class EgressLimitError extends EgressError {
  declare readonly reason: LimitReason;

  constructor(reason: LimitReason, context: EgressErrorContext = {}, cause?: unknown) {
    super(reason, describe('egress limit', reason, context), context, cause);
    this.name = 'EgressLimitError';
  }
}

/** An allowed destination could not be reached or answered badly (refused, reset, TLS failure). */
export class EgressNetworkError extends EgressError {
  declare readonly reason: NetworkReason;

  constructor(context: EgressErrorContext, cause?: unknown) {
    super('network', describe('egress network failure', 'network', context), context, cause);
    this.name = 'EgressNetworkError';
  }
}

/** The policy or a bound credential is malformed (a programming error, never the model's). */
export class EgressPolicyError extends Error {
  readonly field: string;

  constructor(field: string, message: string) {
    super(`invalid egress policy: ${field}: ${message}`);
    this.name = 'EgressPolicyError';
    this.field = field;
  }
}

function describe(prefix: string, reason: string, context: EgressErrorContext): string {
  const parts = [`${prefix}: ${reason}`];
  if (context.host !== undefined) parts.push(`host ${context.host}`);
  if (context.address !== undefined) parts.push(`address ${context.address}`);
  if (context.detail !== undefined) parts.push(context.detail);
  return parts.join(', ');
}
