/**
 * A model port whose API key comes from a TTL cache: a rotated key is picked up within the TTL, and a call
 * refused as unauthenticated (401/403, `ModelAuthError`) re-reads the key once and is retried once with the
 * new key — a revoked key stops failing turns as soon as the new one is in the secret.
 */
import type { ModelPort } from '../core/ports.ts';
import type { TtlCache } from '../credentials/ttl-cache.ts';
import { ModelAuthError } from '../model/errors.ts';

export function refreshingModel(apiKey: TtlCache<string>, make: (apiKey: string) => ModelPort): ModelPort {
  let current: { key: string; model: ModelPort } | undefined;
  const modelFor = (key: string): ModelPort => {
    if (current?.key !== key) current = { key, model: make(key) };
    return current.model;
  };
  return {
    async call(request) {
      const key = await apiKey.get();
      try {
        return await modelFor(key).call(request);
      } catch (error) {
        if (!(error instanceof ModelAuthError)) throw error;
        const fresh = await apiKey.refresh();
        if (fresh === key) throw error;
        return modelFor(fresh).call(request);
      }
    },
  };
}
