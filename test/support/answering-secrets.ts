/**
 * A Secrets Manager port (the real adapter, shared/credentials/secrets-manager.ts) over a client that answers
 * each secret id with a value or with an AWS error of the given name, as the SDK throws them
 * (ResourceNotFoundException, AccessDeniedException, ThrottlingException, …).
 */
import type { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import type { SecretsPort } from '../../shared/core/ports.ts';
import { secretsManagerSecrets } from '../../shared/credentials/secrets-manager.ts';

/** `answers[secretId]`: `{ value }` or `{ error: name }`; an id not listed is ResourceNotFoundException. */
export function answeringSecrets(
  answers: Record<string, { value: string } | { error: string }>,
): SecretsPort & { reads: string[] } {
  const reads: string[] = [];
  const client = {
    send: async (command: unknown) => {
      const id = (command as GetSecretValueCommand).input.SecretId ?? '';
      reads.push(id);
      const answer = answers[id] ?? { error: 'ResourceNotFoundException' };
      if ('value' in answer) return { SecretString: answer.value };
      const error = new Error(`${answer.error} for ${id}`);
      error.name = answer.error;
      throw error;
    },
  };
  const port = secretsManagerSecrets({ clientFor: async () => client as never, namePrefix: 'wf/' });
  return Object.assign(port, { reads });
}
