/**
 * `checkUrl`: the full verdict on a URL (URL checks, then every resolved address) without connecting.
 */
import { resolveChecked } from './dns.ts';
import { type DenyReason, EgressDeniedError } from './errors.ts';
import { type EgressPolicy, type ResolvedPolicy, resolvePolicy } from './policy.ts';
import { checkTarget, parseTarget } from './url.ts';

export type UrlCheck =
  | { allowed: true; addresses: string[] }
  | { allowed: false; reason: DenyReason; detail: string };

/** Would the guard let this URL through? Resolves through the policy's resolver, connects to nothing. */
export async function checkUrl(url: string | URL, policy: EgressPolicy = {}): Promise<UrlCheck> {
  return checkUrlWith(url, resolvePolicy(policy));
}

/** `checkUrl` for an already resolved policy. */
export async function checkUrlWith(url: string | URL, policy: ResolvedPolicy): Promise<UrlCheck> {
  try {
    const target = parseTarget(url);
    checkTarget(target, policy);
    const addresses =
      target.literal === undefined
        ? await resolveChecked(target.host, target.port, policy)
        : [target.literal];
    return { allowed: true, addresses };
  } catch (error) {
    if (error instanceof EgressDeniedError)
      return { allowed: false, reason: error.reason, detail: error.message };
    throw error;
  }
}
