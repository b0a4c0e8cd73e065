/**
 * The Anthropic key behind a TTL cache: a 401 re-reads the key once and retries once with the new key.
 * The real SDK against the scripted Messages-API server, which answers the scripted 401.
 */
import { describe, expect, it } from 'vitest';
import { ttlCache } from '../../shared/credentials/ttl-cache.ts';
import { createAnthropicModel } from '../../shared/model/anthropic.ts';
import { ModelAuthError } from '../../shared/model/errors.ts';
import { refreshingModel } from '../../shared/runtime/refreshing-model.ts';
import { modelRequest, scripted } from '../model/helpers.ts';
import { FixedClock } from '../support/store.ts';

/** A key store whose value the test rotates; records each load and whether it was forced. */
function keyStore(initial: string) {
  const clock = new FixedClock();
  const loads: boolean[] = [];
  const store = { value: initial };
  const cache = ttlCache(
    async (force) => {
      loads.push(force);
      return store.value;
    },
    { maxAgeMs: 300_000, minRefreshIntervalMs: 0, nowMs: () => clock.nowMs() },
  );
  return { store, loads, cache };
}

describe('refreshingModel', () => {
  it('re-reads a revoked key after a 401 and retries once with the rotated one', async () => {
    // Prepare: the API refuses the first attempt as unauthenticated; the key was rotated meanwhile
    const server = await scripted({
      name: 'auth',
      turns: [{ error: { status: 401, times: 1 }, text: 'hello' }],
    });
    const keys = keyStore('sk-revoked');
    await keys.cache.get();
    keys.store.value = 'sk-rotated';
    const used: string[] = [];
    const model = refreshingModel(keys.cache, (apiKey) => {
      used.push(apiKey);
      return createAnthropicModel({ apiKey, baseURL: server.url, streaming: false });
    });

    // Act
    const response = await model.call(modelRequest());

    // Assess
    expect(response.content).toEqual([{ type: 'text', text: 'hello' }]);
    expect(used).toEqual(['sk-revoked', 'sk-rotated']);
    expect(keys.loads).toEqual([false, true]);
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after one refresh when the key did not change', async () => {
    const server = await scripted({ name: 'auth', turns: [{ error: { status: 401 } }] });
    const keys = keyStore('sk-revoked');
    const model = refreshingModel(keys.cache, (apiKey) =>
      createAnthropicModel({ apiKey, baseURL: server.url, streaming: false }),
    );

    await expect(model.call(modelRequest())).rejects.toBeInstanceOf(ModelAuthError);
    expect(keys.loads).toEqual([false, true]);
    expect(server.requests).toHaveLength(1);
  });

  it('does not re-read the key for other errors', async () => {
    const server = await scripted({ name: 'limit', turns: [{ error: { status: 429 } }] });
    const keys = keyStore('sk-good');
    const model = refreshingModel(keys.cache, (apiKey) =>
      createAnthropicModel({ apiKey, baseURL: server.url, streaming: false }),
    );

    await expect(model.call(modelRequest())).rejects.toMatchObject({ name: 'ModelRateLimitedError' });
    expect(keys.loads).toEqual([false]);
  });
});
