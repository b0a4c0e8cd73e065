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
    throw new CredentialError(ref.secret, 'was asked for without an owner', { permanent: true });
  if (!isOwnerSecret(namePrefix, ref.owner, ref.secret)) {
    throw new CredentialError(
      ref.secret,
      `is not one of this owner's secrets: credential secrets must be named '${ownerSecretPrefix(namePrefix, ref.owner)}<name>'`,
      { permanent: true },
    );
  }
}

/**
 * Save-time check of a definition's credRefs: one field error per reference outside the owner's namespace,
 * named like every other field error (`credRefs.<slot>.secret`). Empty when all are the owner's.
 */
export function foreignCredentialRefs(
  namePrefix: string,
  owner: string,
  credRefs: Readonly<Record<string, { secret: string }>>,
): { path: string; message: string }[] {
  const expected = ownerSecretPrefix(namePrefix, owner);
  return Object.entries(credRefs)
    .filter(([, ref]) => !isOwnerSecret(namePrefix, owner, ref.secret))
    .map(([slot, ref]) => ({
      path: `credRefs.${slot}.secret`,
      message: `'${ref.secret}' is not one of your secrets: credential secrets must be named '${expected}<name>' (see docs/deploy.md, Credentials)`,
    }));
}
