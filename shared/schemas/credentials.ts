/** `credRefs`: named references to Secrets Manager secrets. Never values. */
import * as z from '../zod.ts';

/** Shapes of well-known raw credentials, refused where a reference is expected. */
const RAW_SECRET_PATTERNS: readonly [RegExp, string][] = [
  [/^sk-[A-Za-z0-9_-]{16,}/, 'an API key (sk-…)'],
  [/^(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/, 'a GitHub token'],
  [/^github_pat_/, 'a GitHub token'],
  [/^xox[abposr]-/, 'a Slack token'],
  [/^(AKIA|ASIA)[A-Z0-9]{16}$/, 'an AWS access key id'],
  [/^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./, 'a JWT'],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----/, 'a private key'],
  [/^https?:\/\//, 'a URL (webhook URLs are secrets: store them in Secrets Manager)'],
];

function shannonEntropy(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let entropy = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    entropy -= p * Math.log2(p);
  }
  return entropy;
}

/** Why a string looks like a raw secret rather than a secret name or ARN, or undefined. */
export function rawSecretReason(value: string): string | undefined {
  for (const [pattern, label] of RAW_SECRET_PATTERNS) if (pattern.test(value)) return label;
  if (value.startsWith('arn:')) return undefined;
  // Secret names are human-chosen paths; a long, slash-free, high-entropy string is a value.
  if (value.length >= 32 && !value.includes('/') && shannonEntropy(value) > 4.2)
    return 'a high-entropy value';
  return undefined;
}

const SecretIdSchema = z.string().check(
  z.minLength(1),
  z.maxLength(2048),
  z.regex(
    /^(arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+|[A-Za-z0-9/_+=.@-]{1,512})$/,
    'must be a Secrets Manager secret name or ARN',
  ),
  z.superRefine((value, ctx) => {
    const reason = rawSecretReason(value);
    if (reason) {
      ctx.addIssue({
        code: 'custom',
        message: `looks like ${reason}, not a reference: store the value in Secrets Manager and give its name or ARN`,
      });
    }
  }),
);

function refusedValueMessage(input: unknown): string | undefined {
  if (typeof input !== 'string') return undefined;
  const reason = rawSecretReason(input);
  return `must be a reference { secret: <Secrets Manager name or ARN> }, not a value${reason ? ` (this looks like ${reason})` : ''}`;
}

export const CredentialRefSchema = z.strictObject(
  {
    secret: SecretIdSchema.check(
      z.describe('Secrets Manager secret name or ARN (locally: a key of the secrets file).'),
    ),
    field: z
      .optional(z.string().check(z.minLength(1), z.maxLength(128)))
      .check(z.describe('For JSON secrets: the field holding the value.')),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? refusedValueMessage(issue.input) : undefined) },
);
export type CredentialRefSpec = z.infer<typeof CredentialRefSchema>;

/** `credRefs`: slot name → reference to a secret. */
export const CredRefsSchema = z.record(
  z.string().check(z.regex(/^[a-z][a-z0-9_]{0,63}$/, 'credential slot names are lower snake case')),
  CredentialRefSchema,
);
