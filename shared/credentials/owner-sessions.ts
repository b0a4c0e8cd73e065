/**
 * Per-owner role sessions: the AWS half of credential tenancy. For each owner, the function assumes the
 * credential-reader role with the session tag `wf-owner=<ownerKey>`; that role may read a secret only when
 * the secret's `wf-owner` tag equals the session's (infra/constructs/credential-reader.ts). So even a bug in
 * the application check cannot read another owner's secret.
 *
 * - Session tags on AssumeRole need `sts:TagSession` besides `sts:AssumeRole` in the role's trust policy:
 *   https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html#id_session-tags_permissions-required
 * - Session tag values: at most 256 characters of `[\p{L}\p{Z}\p{N}_.:/=+\-@]`; ownerKey stays within that:
 *   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html#reference_iam-quotas-entity-length
 * - RoleSessionName: 2-64 characters of `[\w+=,.@-]`:
 *   https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html
 *
 * Sessions are cached per owner until five minutes before they expire, for the most recent
 * `MAX_CACHED_OWNERS` owners (recent-owners.ts).
 */
import { createHash } from 'node:crypto';
import { AssumeRoleCommand, type STSClient } from '@aws-sdk/client-sts';
import { CredentialError } from './errors.ts';
import { OWNER_TAG_KEY, ownerKey } from './owner-key.ts';
import { RecentOwners } from './recent-owners.ts';

/** Session lifetime asked for (the minimum AssumeRole allows is 900 s). */
export const OWNER_SESSION_SECONDS = 900;

const REFRESH_MARGIN_MS = 5 * 60_000;

export type SessionCredentials = {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
};

export type OwnerSessionsOptions = {
  sts: Pick<STSClient, 'send'>;
  /** The credential-reader role. */
  roleArn: string;
  nowMs: () => number;
  /** @default MAX_CACHED_OWNERS */
  maxOwners?: number;
};

/** A session name that says which owner, within the 64-character limit, for CloudTrail. */
export const sessionNameFor = (owner: string): string =>
  `wf-${createHash('sha256').update(owner, 'utf8').digest('hex').slice(0, 40)}`;

/** Credentials of the owner's tagged role session, cached per owner. */
export function ownerSessions(options: OwnerSessionsOptions): (owner: string) => Promise<SessionCredentials> {
  const sessions = new RecentOwners<Promise<SessionCredentials>>(options.maxOwners);
  const assume = async (owner: string): Promise<SessionCredentials> => {
    const response = await options.sts.send(
      new AssumeRoleCommand({
        RoleArn: options.roleArn,
        RoleSessionName: sessionNameFor(owner),
        DurationSeconds: OWNER_SESSION_SECONDS,
        Tags: [{ Key: OWNER_TAG_KEY, Value: ownerKey(owner) }],
      }),
    );
    const c = response.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken || !c.Expiration)
      throw new CredentialError(options.roleArn, 'AssumeRole returned no credentials');
    return {
      accessKeyId: c.AccessKeyId,
      secretAccessKey: c.SecretAccessKey,
      sessionToken: c.SessionToken,
      expiration: c.Expiration,
    };
  };
  return async (owner) => {
    const cached = sessions.get(owner);
    if (cached) {
      const session = await cached.catch(() => undefined);
      if (session && session.expiration.getTime() - REFRESH_MARGIN_MS > options.nowMs()) return session;
      sessions.deleteIf(owner, cached);
    }
    const pending = assume(owner);
    sessions.set(owner, pending);
    pending.catch(() => sessions.deleteIf(owner, pending));
    return pending;
  };
}
