/**
 * Credential errors. Messages name the reference, never a value. `permanent` says that no retry can help (no
 * such secret, access denied, a name outside the owner's namespace, a field the value does not have): the
 * engine then fails the run at once instead of retrying it (SecretsPort, `isPermanentCredentialFailure`).
 */
export class CredentialError extends Error {
  readonly secret: string;
  readonly permanent: boolean;
  constructor(secret: string, detail: string, options?: { cause?: unknown; permanent?: boolean }) {
    super(
      `credential '${secret}': ${detail}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'CredentialError';
    this.secret = secret;
    this.permanent = options?.permanent ?? false;
  }
}
