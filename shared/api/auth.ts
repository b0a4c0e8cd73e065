/**
 * Authenticators: the owner always comes from verified identity, never from a body.
 * - IAM (API Gateway HTTP API, IAM authorization): the caller's account and IAM identity, normalized.
 * - JWT (API Gateway JWT authorizer): a claim of the verified token (`sub` by default).
 * - API keys (local): `Authorization: Bearer <key>`, looked up in a keys file with a constant-time compare.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import { cutText } from '../core/byte-caps.ts';
import { OwnerIdSchema } from '../schemas/common.ts';
import { ClientIdSchema } from '../schemas/job.ts';
import * as z from '../zod.ts';
import type { ApiEnv, Authenticator, Identity } from './deps.ts';
import { ApiError, AuthConfigError } from './errors.ts';

const principalOf = (value: string) => cutText(value.replaceAll(/\s/g, '_'), 512);
const validOwner = (owner: string) => (OwnerIdSchema.safeParse(owner).success ? owner : undefined);

const IamEnvSchema = z.object({
  event: z.object({
    requestContext: z.object({
      authorizer: z.object({ iam: z.object({ accountId: z.string(), userArn: z.string() }) }),
    }),
  }),
});

/**
 * A federated user (`sts:GetFederationToken`) is named by its caller: `Name` is whatever the IAM user calling
 * GetFederationToken passes, and neither the ARN (`arn:aws:sts::<account>:federated-user/<Name>`) nor the
 * user id (`<account>:<Name>`) says which IAM user that was
 * (https://docs.aws.amazon.com/STS/latest/APIReference/API_GetFederationToken.html, parameter `Name`;
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html, `aws:userid`). So any
 * IAM user allowed GetFederationToken could pick another federated user's name and be that owner: such
 * callers are refused (403), never mapped to an owner.
 */
export const FEDERATED_USER_REFUSED =
  'federated users (sts:GetFederationToken) are not accepted: their name is chosen by whoever requests the token, so it cannot identify an owner; sign requests as an IAM role or user';

const isFederatedUserArn = (userArn: string) => /^arn:aws[a-z-]*:sts::\d{12}:federated-user\//.test(userArn);

/**
 * The owner of an IAM caller: `<account>:<kind>:<name>`, where kind is `user` or `role` (an assumed role; the
 * session name is dropped, so every session of a role is one owner), and the root user is `<account>:root`.
 * IAM paths are dropped (names are unique per account); `=` and `,` in names are written `=3D` and `=2C`.
 * Undefined when the ARN is not an IAM caller of `accountId`, and for a federated user (its name is the
 * caller's choice: see FEDERATED_USER_REFUSED).
 */
export function ownerFromIamArn(accountId: string, userArn: string): string | undefined {
  const match = /^arn:aws[a-z-]*:(iam|sts)::(\d{12}):(.+)$/.exec(userArn);
  if (!match || match[2] !== accountId) return undefined;
  const [, service, account, resource = ''] = match;
  const segments = resource.split('/');
  const head = segments[0];
  let kind: string;
  let name: string | undefined;
  if (service === 'iam' && resource === 'root') return validOwner(`${account}:root`);
  if (service === 'sts' && head === 'assumed-role') [kind, name] = ['role', segments[1]];
  else if (service === 'iam' && (head === 'user' || head === 'role')) [kind, name] = [head, segments.at(-1)];
  else return undefined;
  if (!name || segments.length < 2) return undefined;
  return validOwner(`${account}:${kind}:${name.replaceAll('=', '=3D').replaceAll(',', '=2C')}`);
}

/** IAM (SigV4) callers, from `requestContext.authorizer.iam` of the HTTP API's Lambda event. */
export function iamAuthenticator(): Authenticator {
  return {
    authenticate(_request, env) {
      const parsed = IamEnvSchema.safeParse(env);
      if (!parsed.success) return undefined;
      const { accountId, userArn } = parsed.data.event.requestContext.authorizer.iam;
      // Fail closed with the reason: a 401 would suggest signing again, which cannot help.
      if (isFederatedUserArn(userArn)) throw new ApiError(403, 'forbidden', FEDERATED_USER_REFUSED);
      const owner = ownerFromIamArn(accountId, userArn);
      return owner ? { owner, principal: principalOf(userArn) } : undefined;
    },
  };
}

const JwtEnvSchema = z.object({
  event: z.object({
    requestContext: z.object({
      authorizer: z.object({ jwt: z.object({ claims: z.record(z.string(), z.unknown()) }) }),
    }),
  }),
});

/**
 * The scope that proves, in a machine token, which owner the client acts for: `wf-jobs/owner:<owner id>`, a
 * custom scope of the resource server `wf-jobs` that the operator (whoever administers the user pool, never an
 * owner of this API) allows on the client's app client. Cognito puts the granted custom scopes of a
 * client-credentials token in its `scope` claim, space-separated, as `<resource server identifier>/<scope
 * name>` (https://docs.aws.amazon.com/cognito/latest/developerguide/cognito-user-pools-define-resource-servers.html;
 * scope names: https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_ResourceServerScopeType.html,
 * no `/` in them, so an owner id containing `/` cannot be proven this way).
 */
export const CLIENT_OWNER_SCOPE_PREFIX = 'wf-jobs/owner:';

/** The one owner a machine token's scopes prove, or '' (none, or more than one: which is never guessed). */
function provenOwner(scope: unknown, prefix: string): string {
  if (typeof scope !== 'string') return '';
  const owners = new Set(
    scope
      .split(' ')
      .filter((each) => each.startsWith(prefix))
      .map((each) => each.slice(prefix.length)),
  );
  const [owner] = owners;
  return owners.size === 1 && owner !== undefined && validOwner(owner) ? owner : '';
}

/**
 * Callers with a token the JWT authorizer verified; the owner is `ownerClaim` (default `sub`). A machine
 * token (OAuth client credentials: its `sub` is its client id, as Cognito issues them, see
 * https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-the-access-token.html)
 * is a delegated-jobs client (docs/jobs.md): `client` is its `clientClaim` (default `client_id`) and its owner
 * is the one its token proves (`clientOwnerScopePrefix` + owner id in `scope`, set by the identity provider's
 * operator), '' when it proves none: a grant applies only to a token proving the grant's owner. It may use
 * nothing but the job routes.
 */
export function jwtAuthenticator(
  options: { ownerClaim?: string; clientClaim?: string; clientOwnerScopePrefix?: string } = {},
): Authenticator {
  const ownerClaim = options.ownerClaim ?? 'sub';
  const clientClaim = options.clientClaim ?? 'client_id';
  const scopePrefix = options.clientOwnerScopePrefix ?? CLIENT_OWNER_SCOPE_PREFIX;
  return {
    authenticate(_request, env) {
      const parsed = JwtEnvSchema.safeParse(env);
      if (!parsed.success) return undefined;
      const { claims } = parsed.data.event.requestContext.authorizer.jwt;
      const sub = claims.sub;
      const client = claims[clientClaim];
      if (typeof client === 'string' && client !== '' && client === sub) {
        const valid = ClientIdSchema.safeParse(client);
        if (!valid.success) return undefined;
        const owner = provenOwner(claims.scope, scopePrefix);
        return { owner, principal: principalOf(`client:${client}`), client };
      }
      const owner = claims[ownerClaim];
      if (typeof sub !== 'string' || sub === '' || typeof owner !== 'string') return undefined;
      const valid = validOwner(owner);
      return valid ? { owner: valid, principal: principalOf(sub) } : undefined;
    },
  };
}

/**
 * The local API keys file: `{ "keys": { "<key>": { "owner": "alice", "principal"?: "alice@laptop" } } }`.
 * An entry with `client` is a delegated-jobs client of that owner (docs/jobs.md): it may use the job routes
 * only, under the grant its owner gave that client id.
 */
export const ApiKeysFileSchema = z.strictObject({
  keys: z.record(
    z.string().check(z.minLength(16, 'API keys must be at least 16 characters'), z.maxLength(256)),
    z.strictObject({
      owner: OwnerIdSchema,
      principal: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
      client: z.optional(ClientIdSchema),
    }),
  ),
});

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Local callers with an API key from the keys file (its contents, JSON). Throws AuthConfigError when unusable. */
export function apiKeyAuthenticator(keysFile: string): Authenticator {
  let raw: unknown;
  try {
    raw = JSON.parse(keysFile);
  } catch (error) {
    throw new AuthConfigError('the API keys file is not valid JSON', { cause: error });
  }
  const parsed = ApiKeysFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AuthConfigError(
      `the API keys file is invalid: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`,
    );
  }
  const entries = Object.entries(parsed.data.keys).map(([key, entry]) => ({
    digest: digest(key),
    identity: (entry.client
      ? {
          owner: entry.owner,
          principal: principalOf(entry.principal ?? `client:${entry.client}`),
          client: entry.client,
        }
      : { owner: entry.owner, principal: principalOf(entry.principal ?? entry.owner) }) as Identity,
  }));
  return {
    authenticate(request) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
      if (!match?.[1]) return undefined;
      // Equal-length digests, every key compared: the time taken says nothing about which bytes matched.
      const presented = digest(match[1]);
      let found: Identity | undefined;
      for (const entry of entries) if (timingSafeEqual(entry.digest, presented)) found ??= entry.identity;
      return found;
    },
  };
}

/** Middleware: verify the caller or answer 401; the identity is then `c.get('identity')`. */
export function requireIdentity(authenticator: Authenticator) {
  return createMiddleware<ApiEnv>(async (c, next) => {
    const identity = await authenticator.authenticate(c.req.raw, c.env);
    if (!identity) {
      throw new ApiError(
        401,
        'unauthenticated',
        'authentication is required: a signed request, a token or an API key',
        {
          headers: { 'WWW-Authenticate': 'Bearer' },
        },
      );
    }
    c.set('identity', identity);
    await next();
  });
}

/** The owners `authenticator` verifies, without its delegated-jobs clients (for owner-only surfaces). */
export const ownersOnly = (authenticator: Authenticator): Authenticator => ({
  async authenticate(request, env) {
    const identity = await authenticator.authenticate(request, env);
    return identity?.client === undefined ? identity : undefined;
  },
});

/** Paths a delegated-jobs client may use; every other path is the owner's. */
export const CLIENT_PATH_PREFIXES: readonly string[] = ['/v1/jobs'];

/** Middleware: a client identity (docs/jobs.md) gets 403 outside the client paths. */
export function ownerPathsOnly(clientPaths: readonly string[] = CLIENT_PATH_PREFIXES) {
  return createMiddleware<ApiEnv>(async (c, next) => {
    const { client } = c.get('identity');
    const path = c.req.path;
    const allowed = clientPaths.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
    if (client !== undefined && !allowed)
      throw new ApiError(403, 'forbidden', 'a delegated-jobs client may only use /v1/jobs and /mcp');
    await next();
  });
}
