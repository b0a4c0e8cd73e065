/** The application half of credential tenancy: a reference resolves only inside its owner's namespace. */
import type { CredentialRef } from '../core/ports.ts';
import { CredentialError } from './errors.ts';
import { isOwnerSecret, ownerSecretPrefix } from './owner-key.ts';

/**
 * Throws unless `ref.secret` names one of `ref.owner`'s secrets (`<namePrefix><ownerKey>/…`). Fails closed:
 * a missing owner is refused like a foreign secret. The message names the expected prefix, never a value.
 */
export function assertOwnerSecret(namePrefix: string, ref: CredentialRef): void {
  if (typeof ref.owner !== 'string' || ref.owner === '')
    throw new CredentialError(ref.secret, 'was asked for without an owner');
  if (!isOwnerSecret(namePrefix, ref.owner, ref.secret)) {
    throw new CredentialError(
      ref.secret,
      `is not one of this owner's secrets: credential secrets must be named '${ownerSecretPrefix(namePrefix, ref.owner)}<name>'`,
    );
  }
}
