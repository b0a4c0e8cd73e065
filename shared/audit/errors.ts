/** Errors of the audit chain. Verification failures are data (see `verifyAuditChain`); these are misuse. */

/** An entry could not be sealed: it does not match the schema or cannot be canonicalized. */
export class AuditEntryError extends Error {
  readonly context: Record<string, unknown>;

  constructor(message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuditEntryError';
    this.context = context;
  }
}

/** A value is not representable as RFC 8785 canonical JSON (NaN, Infinity, lone surrogate, cycle, bigint…). */
export class CanonicalJsonError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CanonicalJsonError';
  }
}
