/**
 * The Secrets Manager adapter says which failed reads no retry can help (`permanent`): a secret that does not
 * exist, one the owner's role may not read, a name outside the owner's namespace. Throttling, server errors and
 * the network stay retryable.
 */
import { describe, expect, it } from 'vitest';
import { isPermanentCredentialFailure } from '../../shared/core/errors.ts';
import { answeringSecrets } from '../support/answering-secrets.ts';

const failureOf = (promise: Promise<unknown>) =>
  promise.then(() => undefined).catch((error: unknown) => error);

describe('secretsManagerSecrets failure classes', () => {
  it.each([
    ['ResourceNotFoundException', true],
    ['AccessDeniedException', true],
    ['InvalidRequestException', true],
    ['ThrottlingException', false],
    ['InternalServiceError', false],
    ['TimeoutError', false],
  ])('a read answered %s is permanent: %s', async (name, permanent) => {
    const secrets = answeringSecrets({ 'wf/alice/token': { error: name } });

    const error = await failureOf(secrets.resolve({ owner: 'alice', secret: 'wf/alice/token' }));

    expect(error).toMatchObject({ name: 'CredentialError', permanent });
    expect(isPermanentCredentialFailure(error)).toBe(permanent);
  });

  it('refuses a name outside the owner namespace as permanent, without reading it', async () => {
    const secrets = answeringSecrets({ 'wf/token': { value: 'legacy-value-00000001' } });

    const error = await failureOf(secrets.resolve({ owner: 'alice', secret: 'wf/token' }));

    expect(isPermanentCredentialFailure(error)).toBe(true);
    expect(secrets.reads).toEqual([]);
  });
});
