/** Credential errors. Messages name the reference, never a value. */
export class CredentialError extends Error {
  readonly secret: string;
  constructor(secret: string, detail: string, options?: { cause?: unknown }) {
    super(`credential '${secret}': ${detail}`, options);
    this.name = 'CredentialError';
    this.secret = secret;
  }
}
