/**
 * Where the approval handlers get the keyring: a live source (rotation takes effect within the cache TTL,
 * and at once when a link signed with a key we do not hold yet arrives) or, in tests, a fixed keyring.
 */
import { type TtlCacheOptions, ttlCache } from '../credentials/ttl-cache.ts';
import { type Keyring, parseKeyring } from './keyring.ts';

export interface KeyringSource {
  /** The keyring, from cache while it is fresh. */
  get(): Promise<Keyring>;
  /** Re-reads the keyring (rate-limited by the cache); used once after a signature check fails. */
  refresh(): Promise<Keyring>;
}

/** A fixed keyring as a source (tests, one-off tools). */
export const fixedKeyring = (keyring: Keyring): KeyringSource => ({
  get: async () => keyring,
  refresh: async () => keyring,
});

const isSource = (value: Keyring | KeyringSource): value is KeyringSource =>
  typeof (value as KeyringSource).get === 'function';

/** A source for either form the handlers' deps accept. */
export const keyringSourceOf = (value: Keyring | KeyringSource): KeyringSource =>
  isSource(value) ? value : fixedKeyring(value);

/** Failures a newer keyring could cure: a key id we do not know, or a signature our key does not match. */
const KEY_FAILURES: ReadonlySet<string> = new Set(['unknown_key', 'bad_signature']);

/**
 * Runs a signature check against the current keyring; when it fails for a key reason, re-reads the keyring
 * once and checks again. Returns the result and the keyring it was checked with (to sign follow-ups with).
 */
export async function checkWithKeyring<R extends { ok: true } | { ok: false; reason: string }>(
  source: KeyringSource,
  check: (keyring: Keyring) => R,
): Promise<{ result: R; keyring: Keyring }> {
  const keyring = await source.get();
  const result = check(keyring);
  if (result.ok || !KEY_FAILURES.has(result.reason)) return { result, keyring };
  const fresh = await source.refresh();
  if (fresh === keyring) return { result, keyring };
  return { result: check(fresh), keyring: fresh };
}

/**
 * A keyring read through `loadRaw` (the secret's JSON string; `force` asks to bypass lower caches), parsed
 * and cached for `maxAgeMs`. A keyring that fails to parse is an error, never an empty keyring (fail closed).
 */
export function cachedKeyring(
  loadRaw: (force: boolean) => Promise<string>,
  options: TtlCacheOptions,
): KeyringSource {
  return ttlCache(async (force) => parseKeyring(await loadRaw(force)), options);
}
