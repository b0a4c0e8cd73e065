import * as z from '../zod.ts';
import { KeyringError } from './errors.ts';

/** One HMAC key: an id that travels in tokens (URL-safe, no dot) and a secret of at least 32 characters. */
export type SigningKey = { kid: string; secret: string };

/** Keys for approval links and form nonces: sign with `current`, verify with `current` or any `previous`. */
export type Keyring = { current: SigningKey; previous?: readonly SigningKey[] };

const SigningKeySchema = z.strictObject({
  kid: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'kid must be 1-64 characters of A-Z a-z 0-9 _ -')),
  // 32 characters of a random base64 or hex string is at least 192 bits; shorter is a configuration mistake.
  secret: z
    .string()
    .check(z.minLength(32, 'secret must be at least 32 characters (e.g. `openssl rand -base64 48`)')),
});

/** The JSON shape of the keyring secret: `{ "current": { "kid", "secret" }, "previous": [ … ] }`. */
export const KeyringSchema = z
  .strictObject({ current: SigningKeySchema, previous: z.optional(z.array(SigningKeySchema)) })
  .check(
    z.superRefine((keyring, ctx) => {
      const kids = [keyring.current, ...(keyring.previous ?? [])].map((key) => key.kid);
      const duplicate = kids.find((kid, i) => kids.indexOf(kid) !== i);
      if (duplicate !== undefined)
        ctx.addIssue({ code: 'custom', message: `kid ${duplicate} is used twice` });
    }),
  );

/** Parses the keyring from its Secrets Manager string; throws `KeyringError` naming what is wrong, never a secret. */
export function parseKeyring(json: string): Keyring {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    // No cause and no parser message: V8's message quotes the input, which is the secret.
    throw new KeyringError('approval keyring is not valid JSON');
  }
  const parsed = KeyringSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new KeyringError(`approval keyring is invalid: ${issues.join('; ')}`, issues);
  }
  const { current, previous } = parsed.data;
  return previous === undefined ? { current } : { current, previous };
}

/** The key with this id, current or previous. */
export function findKey(keyring: Keyring, kid: string): SigningKey | undefined {
  if (keyring.current.kid === kid) return keyring.current;
  return keyring.previous?.find((key) => key.kid === kid);
}
