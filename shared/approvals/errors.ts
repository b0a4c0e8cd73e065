/** Errors of the approval module family. Verification failures are data (`{ ok: false, reason }`); these are misuse. */

/** The approval keyring (as stored in Secrets Manager) is missing, not JSON or invalid. Never carries secret values. */
export class KeyringError extends Error {
  readonly issues: readonly string[];

  constructor(message: string, issues: readonly string[] = []) {
    super(message);
    this.name = 'KeyringError';
    this.issues = issues;
  }
}

/** A link, nonce or URL could not be produced from the given input. */
export class ApprovalLinkError extends Error {
  readonly context: Record<string, unknown>;

  constructor(message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ApprovalLinkError';
    this.context = context;
  }
}

/** A page could not be rendered from the given view (e.g. an unsafe form action). */
export class ApprovalPageError extends Error {
  readonly context: Record<string, unknown>;

  constructor(message: string, context: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ApprovalPageError';
    this.context = context;
  }
}
