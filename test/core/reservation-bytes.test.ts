/**
 * The reservation's input bound (shared/core/pricing.ts `requestInputTokensBound`) is the UTF-8 length of the
 * request's JSON, exactly as before, but a frozen part (the transcript cache's messages, the generated tool
 * schemas) is serialized once per container, not at every reservation (issue #16: each turn reserved twice
 * over the whole transcript).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Message, ModelRequest, ToolSpec } from '../../shared/core/ports.ts';
import {
  CACHE_SCOPE_BYTES,
  jsonBytes,
  requestInputTokensBound,
  TOOL_USE_SYSTEM_PROMPT_TOKENS,
} from '../../shared/core/pricing.ts';

const utf8 = (text: string) => new TextEncoder().encode(text).length;
/** The bound as it was computed before: the whole request serialized each time. */
const serialized = (request: ModelRequest) =>
  utf8(JSON.stringify({ system: request.system, messages: request.messages, tools: request.tools }));

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}

const request = (messages: Message[], tools: ToolSpec[] = []): ModelRequest => ({
  model: 'claude-sonnet-5-5',
  system: 'You keep notes. « € 𝄞 »',
  messages,
  tools,
  maxTokens: 1024,
  thinking: 'off',
  owner: 'owner-1',
});

/** Content as the transcript cache holds it: deeply frozen. */
const kept = (text: string) => deepFreeze([{ type: 'text' as const, text }]);

afterEach(() => vi.restoreAllMocks());

describe('the reservation input bound', () => {
  it('is the UTF-8 length of the request JSON, frozen parts or not', () => {
    const tool: ToolSpec = {
      name: 'notes_append',
      description: 'Append a line',
      inputSchema: deepFreeze({ type: 'object', properties: { line: { type: 'string' } } }),
    };
    const cases: ModelRequest[] = [
      request([]),
      request([{ role: 'user', content: kept('go') }]),
      request(
        [
          { role: 'user', content: kept('héllo "quoted" \n \u2028 \ud800 lone') },
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 't1', name: 'notes_append', input: { line: '€𝄞', n: undefined } },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
        ],
        [tool, { ...tool, name: 'other' }],
      ),
    ];
    for (const each of cases) {
      // Twice: the second time from what the first kept of the frozen parts.
      for (let time = 0; time < 2; time++) {
        // The tool-use prompt and the owner's cache-scope block are added on top, as before.
        expect(requestInputTokensBound(each)).toBe(
          serialized(each) + (each.tools.length > 0 ? TOOL_USE_SYSTEM_PROMPT_TOKENS : 0) + CACHE_SCOPE_BYTES,
        );
      }
    }
    // What JSON leaves out or writes as null, at every depth walked.
    const odd = { a: undefined, b: [undefined, () => 1, 2], c: { d: Symbol('x'), e: 'é' } };
    expect(jsonBytes(odd, 3)).toBe(utf8(JSON.stringify(odd)));
  });

  it('does not serialize again the kept transcript a reservation already measured', () => {
    // Prepare: a long kept (frozen) transcript, measured once, as the previous turn's ahead reservation did.
    const transcript: Message[] = Array.from({ length: 40 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: kept(`message ${i} ${'x'.repeat(2000)}`),
    }));
    const first = requestInputTokensBound(request(transcript));
    const stringify = vi.spyOn(JSON, 'stringify');

    // Act: this turn's reservation over the same messages (new wrappers, as toModelMessages makes) plus a fresh one.
    const next = [
      ...transcript.map((message) => ({ role: message.role, content: message.content })),
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'fresh' }] },
    ];
    const bound = requestInputTokensBound(request(next));

    // Assess: the same bound as serializing everything, and only the new parts were serialized.
    const written = stringify.mock.results.reduce(
      (sum, result) => sum + String(result.value ?? '').length,
      0,
    );
    stringify.mockRestore();
    expect(bound).toBe(first + serialized(request(next)) - serialized(request(transcript)));
    // The transcript is ~80 KB of JSON; what was serialized is its keys and roles and the fresh message.
    expect(written).toBeLessThan(serialized(request(transcript)) / 20);
  });

  it('measures a frozen object again when a part of it can still change', () => {
    const inner = [{ type: 'text' as const, text: 'short' }];
    const shallow = Object.freeze({ role: 'user' as const, content: inner });
    const before = jsonBytes(shallow, 3);
    inner[0]!.text = 'a good deal longer now';
    expect(jsonBytes(shallow, 3)).toBe(utf8(JSON.stringify(shallow)));
    expect(jsonBytes(shallow, 3)).toBeGreaterThan(before);
  });
});
