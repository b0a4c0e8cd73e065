/**
 * A streamed model call ends at its deadline. The SDK's own `timeout` stops at the response headers, so a
 * server that answers at once and then trickles events kept the call open past it (and, in Lambda, past the
 * function's timeout). The server here trickles a whole answer over ~1 s; the deadlines are far shorter.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelConnectionError } from '../../shared/model/errors.ts';
import { chunkMessage } from '../../shared/model/scripted-eventstream.ts';
import { type StreamEvent, sse } from '../../shared/model/scripted-wire.ts';
import { BEDROCK_MODEL, modelOn, modelRequest, type Provider } from './helpers.ts';

const DELTAS = 50;
const DELTA_EVERY_MS = 20;

const start: StreamEvent[] = [
  {
    type: 'message_start',
    message: {
      id: 'msg_trickle',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-5-5',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 1 },
    },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
];
const end: StreamEvent[] = [
  { type: 'content_block_stop', index: 0 },
  {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: DELTAS },
  },
  { type: 'message_stop' },
];

let server: http.Server;
let url: string;
let requests = 0;

/** Headers at once, then one text delta every DELTA_EVERY_MS, in SSE or Bedrock's event-stream framing. */
beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests++;
    req.resume();
    const bedrock = req.url?.endsWith('/invoke-with-response-stream') === true;
    const frame = (event: StreamEvent) => (bedrock ? chunkMessage(event) : sse(event));
    res.writeHead(200, {
      'content-type': bedrock ? 'application/vnd.amazon.eventstream' : 'text/event-stream',
    });
    for (const event of start) res.write(frame(event));
    let sent = 0;
    const timer = setInterval(() => {
      if (sent === DELTAS) {
        clearInterval(timer);
        for (const event of end) res.write(frame(event));
        res.end();
        return;
      }
      const delta = { type: 'text_delta', text: `t${sent++} ` };
      res.write(frame({ type: 'content_block_delta', index: 0, delta }));
    }, DELTA_EVERY_MS);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const requestFor = (provider: Provider) =>
  modelRequest(provider === 'bedrock' ? { model: BEDROCK_MODEL } : {});

describe('Model call deadline', () => {
  it.each([
    ['anthropic', { timeout: 200 }],
    ['bedrock', { timeout: 200 }],
    ['anthropic', { callTimeLimitMs: (): number => 200 }],
    ['bedrock', { callTimeLimitMs: (): number => 200 }],
  ] as const)(
    'a %s stream that trickles past %o ends with a ModelConnectionError',
    async (provider, options) => {
      // Prepare
      const model = modelOn({ url }, options, provider);

      // Act
      const call = model.call(requestFor(provider));

      // Assess
      await expect(call).rejects.toThrow(ModelConnectionError);
      await expect(call).rejects.toThrow(/did not finish within its 200 ms deadline/);
    },
  );

  it('sends no request when the invocation has no time left for the call', async () => {
    // Prepare
    const before = requests;
    const model = modelOn({ url }, { callTimeLimitMs: () => -5 });

    // Act
    const call = model.call(modelRequest());

    // Assess
    await expect(call).rejects.toThrow(ModelConnectionError);
    await expect(call).rejects.toThrow(/no time was left/);
    expect(requests).toBe(before);
  });

  it('a limit longer than the stream leaves the answer whole', async () => {
    // Prepare
    const model = modelOn({ url }, { callTimeLimitMs: () => 60_000 });

    // Act
    const response = await model.call(modelRequest());

    // Assess
    expect(response.stopReason).toBe('end_turn');
    expect(response.content).toEqual([
      { type: 'text', text: Array.from({ length: DELTAS }, (_, i) => `t${i} `).join('') },
    ]);
  });
});
