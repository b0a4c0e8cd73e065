import { afterEach, describe, expect, it } from 'vitest';
import { CACHE_TTL_MS, minimumCacheableTokens } from '../../shared/model/scripted-cache.ts';
import { requestTokens } from '../../shared/model/scripted-prefix.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../../shared/model/scripted-server.ts';
import { modelIdFor, modelOn, modelRequest, PROVIDERS, postMessages, userText } from './helpers.ts';

const EPHEMERAL = { type: 'ephemeral' };
// About 1,500 tokens by the server's estimate (4 characters a token): above Sonnet's 1,024, below Haiku's 2,048.
const LONG_SYSTEM = 'You are a careful assistant. '.repeat(210);

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server whose cache clock the test moves. */
async function cachedServer() {
  const clock = { ms: Date.UTC(2026, 11, 1) };
  const server = await startScriptedModelServer({
    fixtures: { turns: Array.from({ length: 6 }, () => ({ text: 'ok' })) },
    now: () => clock.ms,
  });
  servers.push(server);
  return { server, clock };
}

function body(overrides: Record<string, unknown> = {}) {
  return {
    model: 'claude-sonnet-5-5',
    max_tokens: 100,
    tools: [{ name: 'lookup', description: 'Looks up.', input_schema: { type: 'object' } }],
    system: [{ type: 'text', text: LONG_SYSTEM, cache_control: EPHEMERAL }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'What changed today?' }] }],
    ...overrides,
  };
}

async function usageOf(server: ScriptedModelServer, request: unknown) {
  const response = await postMessages(server, request);
  expect(response.status).toBe(200);
  return JSON.parse(response.text).usage as {
    input_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
  };
}

const sum = (usage: Awaited<ReturnType<typeof usageOf>>) =>
  usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;

describe('scripted server prompt cache', () => {
  it('writes the prefix up to a breakpoint, then reads it back; the three counts sum to the request', async () => {
    // Prepare
    const { server } = await cachedServer();
    const request = body();
    const total = requestTokens(request);
    const tail = requestTokens({ messages: request.messages });

    // Act
    const first = await usageOf(server, request);
    const second = await usageOf(server, request);

    // Assess
    expect(first).toMatchObject({ cache_creation_input_tokens: total - tail, cache_read_input_tokens: 0 });
    expect(first.input_tokens).toBe(tail);
    expect(second).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: total - tail });
    expect([sum(first), sum(second)]).toEqual([total, total]);
  });

  it('expires an entry 5 minutes after its last use, on the server clock', async () => {
    // Prepare
    const { server, clock } = await cachedServer();
    await usageOf(server, body());

    // Act: a read at 4 minutes refreshes the entry; 5 minutes after that read it is gone.
    clock.ms += 4 * 60_000;
    const refreshed = await usageOf(server, body());
    clock.ms += CACHE_TTL_MS - 1;
    const stillThere = await usageOf(server, body());
    clock.ms += CACHE_TTL_MS;
    const expired = await usageOf(server, body());

    // Assess
    expect(refreshed.cache_read_input_tokens).toBeGreaterThan(0);
    expect(stillThere.cache_read_input_tokens).toBeGreaterThan(0);
    expect(expired).toMatchObject({ cache_read_input_tokens: 0 });
    expect(expired.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it('caches nothing below the model minimum: the same prefix caches on Sonnet but not on Haiku', async () => {
    // Prepare
    const { server } = await cachedServer();
    const short = body({ system: [{ type: 'text', text: 'Be brief.', cache_control: EPHEMERAL }] });

    // Act
    const sonnet = await usageOf(server, body());
    const haiku = await usageOf(server, body({ model: 'claude-haiku-3-5' }));
    const tooShort = await usageOf(server, short);

    // Assess
    expect(sonnet.cache_creation_input_tokens).toBeGreaterThan(1024);
    expect(haiku).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    expect(tooShort).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    expect(tooShort.input_tokens).toBe(requestTokens(short));
  });

  it.each([
    ['claude-sonnet-5-5', 1024],
    ['claude-opus-5-5', 1024],
    ['claude-3-5-haiku', 2048],
    ['claude-haiku-4-5', 4096],
    ['us.anthropic.claude-opus-4-6-v1:0', 4096],
  ])('takes the minimum cacheable length of %s as %d tokens', (model, tokens) => {
    expect(minimumCacheableTokens(model)).toBe(tokens);
  });

  it('keys the cache in the order tools → system → messages: a changed tool misses, a changed message reads the rest', async () => {
    // Prepare
    const { server } = await cachedServer();
    await usageOf(server, body());
    const otherTool = [{ name: 'lookup', description: 'Looks things up.', input_schema: { type: 'object' } }];

    // Act
    const newMessage = await usageOf(
      server,
      body({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Something else?' }] }] }),
    );
    const newTool = await usageOf(server, body({ tools: otherTool }));

    // Assess
    expect(newMessage.cache_read_input_tokens).toBe(
      requestTokens({ tools: body().tools, system: body().system }),
    );
    expect(newTool.cache_read_input_tokens).toBe(0);
  });

  it('finds an earlier entry up to 20 blocks before a breakpoint, not further', async () => {
    // Prepare: the system prompt is cached; then 19 or 20 blocks follow it up to the only breakpoint.
    const { server } = await cachedServer();
    await usageOf(server, body());
    const texts = (n: number, word: string) =>
      Array.from({ length: n }, (_, i) => ({ type: 'text', text: `${word} ${i}` })).map((block, i, all) =>
        i === all.length - 1 ? { ...block, cache_control: EPHEMERAL } : block,
      );
    const system = [{ type: 'text', text: LONG_SYSTEM }];

    // Act
    const within = await usageOf(
      server,
      body({ system, messages: [{ role: 'user', content: texts(19, 'note') }] }),
    );
    const beyond = await usageOf(
      server,
      body({ system, messages: [{ role: 'user', content: texts(20, 'other') }] }),
    );

    // Assess
    const cached = requestTokens({ tools: body().tools, system });
    expect(within.cache_read_input_tokens).toBe(cached);
    expect(beyond.cache_read_input_tokens).toBe(0);
  });

  it('refuses more than 4 breakpoints with the API error, and writes nothing', async () => {
    // Prepare
    const { server } = await cachedServer();
    const marked = Array.from({ length: 4 }, (_, i) => ({
      type: 'text',
      text: `part ${i}`,
      cache_control: EPHEMERAL,
    }));
    const five = body({ messages: [{ role: 'user', content: marked }] });

    // Act
    const response = await postMessages(server, five);
    const after = await usageOf(server, body());

    // Assess
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text).error).toEqual({
      type: 'invalid_request_error',
      message: 'A maximum of 4 blocks with cache_control may be provided. Found 5.',
    });
    expect(server.failures.map((failure) => failure.kind)).toEqual(['request']);
    expect(after.cache_read_input_tokens).toBe(0);
  });

  it('keeps usage a fixture states, whatever the cache holds', async () => {
    // Prepare
    const server = await startScriptedModelServer({
      fixtures: {
        turns: [{ response: { content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 7 } } }],
      },
    });
    servers.push(server);

    // Act
    const usage = await usageOf(server, body());

    // Assess
    expect(usage).toMatchObject({
      input_tokens: 7,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });

  it.each(PROVIDERS)('reports cache reads and writes through the %s SDK adapter', async (provider) => {
    // Prepare
    const { server } = await cachedServer();
    const model = modelOn(server, {}, provider);
    const request = modelRequest({
      model: modelIdFor(provider),
      system: LONG_SYSTEM,
      messages: [userText('Hi')],
    });

    // Act
    const first = await model.call(request);
    const second = await model.call(request);

    // Assess
    expect(first.usage.cacheCreationInputTokens).toBeGreaterThan(1024);
    expect(second.usage).toMatchObject({
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: first.usage.cacheCreationInputTokens,
    });
  });

  it('reads the previous turn back after a turn of many parallel tool calls (beyond the 20-block lookback)', async () => {
    // Prepare: the previous turn's request, then 12 calls and their 12 results appended (24 blocks).
    const { server } = await cachedServer();
    const model = modelOn(server);
    const previous = modelRequest({ system: LONG_SYSTEM, messages: [userText('Look up twelve users.')] });
    const ids = Array.from({ length: 12 }, (_, i) => `toolu_${i}`);
    const next = modelRequest({
      system: LONG_SYSTEM,
      messages: [
        userText('Look up twelve users.'),
        {
          role: 'assistant',
          content: ids.map((id) => ({ type: 'tool_use', id, name: 'lookup_user', input: { id } })),
        },
        {
          role: 'user',
          content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: `user ${id}` })),
        },
      ],
    });

    // Act
    const first = await model.call(previous);
    const second = await model.call(next);

    // Assess
    expect(second.usage.cacheReadInputTokens).toBe(
      first.usage.cacheReadInputTokens + first.usage.cacheCreationInputTokens,
    );
  });
});
