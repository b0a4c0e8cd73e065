import { describe, expect, it } from 'vitest';
import { noticingCatalog, redactingModel, SeenCredentials } from '../../shared/actions/index.ts';
import type { ActionCatalog } from '../../shared/core/actions.ts';
import type { ModelPort, ModelRequest, ModelResponse } from '../../shared/core/ports.ts';
import { REDACTED } from '../../shared/credentials/redactor.ts';
import { definitionWith, secretsFile } from './support.ts';

const SECRET = 'wfsecret-ModelSays-Gh2+Ue/19Ip=Ws47';
const definition = definitionWith({ credRefs: { token: { secret: 'wf/test/token' } } });
const request: ModelRequest = {
  model: 'm',
  system: 's',
  messages: [],
  tools: [],
  maxTokens: 10,
  thinking: 'off',
};

const saying = (content: ModelResponse['content']): ModelPort => ({
  call: async () => ({
    model: 'm',
    content,
    stopReason: 'tool_use',
    usage: { inputTokens: 1, outputTokens: 1, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
  }),
});

describe('redactingModel', () => {
  it('redacts credential values from text and from tool inputs (values and keys, nested), and leaves signed thinking alone', async () => {
    // Prepare: a fresh process; the workflow was seen by the catalog just before the model call
    const seen = new SeenCredentials();
    const catalog: ActionCatalog = noticingCatalog({ resolve: () => undefined }, seen);
    catalog.resolve('http_request', definition);
    const model = saying([
      { type: 'thinking', thinking: `the token is ${SECRET}`, signature: 'sig' },
      { type: 'text', text: `Sending ${SECRET} now` },
      {
        type: 'tool_use',
        id: 't1',
        name: 'http_request',
        input: {
          url: `https://x.example/?k=${encodeURIComponent(SECRET)}`,
          headers: { [SECRET]: Buffer.from(SECRET).toString('base64') },
          n: [1, true, null],
        },
      },
    ]);

    // Act
    const response = await redactingModel(model, secretsFile({ 'wf/test/token': SECRET }), seen).call(
      request,
    );

    // Assess
    expect(response.content).toEqual([
      { type: 'thinking', thinking: `the token is ${SECRET}`, signature: 'sig' },
      { type: 'text', text: `Sending ${REDACTED} now` },
      {
        type: 'tool_use',
        id: 't1',
        name: 'http_request',
        input: {
          url: `https://x.example/?k=${REDACTED}`,
          headers: { [REDACTED]: REDACTED },
          n: [1, true, null],
        },
      },
    ]);
  });

  it('cannot redact what no workflow it served refers to (the limit: it knows the credentials it has seen)', async () => {
    const response = await redactingModel(
      saying([{ type: 'text', text: SECRET }]),
      secretsFile({ 'wf/test/token': SECRET }),
    ).call(request);
    expect(response.content).toEqual([{ type: 'text', text: SECRET }]);
  });

  it('still answers when a remembered credential cannot be read', async () => {
    const seen = new SeenCredentials();
    seen.note(definition);
    const response = await redactingModel(
      saying([{ type: 'text', text: 'hello' }]),
      secretsFile({}),
      seen,
    ).call(request);
    expect(response.content).toEqual([{ type: 'text', text: 'hello' }]);
  });
});
