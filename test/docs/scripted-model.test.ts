/** Every fenced block of docs/scripted-model.md, read from the page and run on the scripted server. */
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicModel } from '../../shared/model/anthropic.ts';
import { ScriptedFixtureSchema } from '../../shared/model/scripted-fixture.ts';
import { type ScriptedModelServer, startScriptedModelServer } from '../../shared/model/scripted-server.ts';
import { lookupUser, modelRequest, postMessages, sendEmail, userText } from '../model/helpers.ts';
import { blockWith, calledNames, exportedNames, fencedBlocks } from './fenced-blocks.ts';

const PAGE = 'scripted-model.md';
const page = readFileSync(new URL(`../../docs/${PAGE}`, import.meta.url), 'utf8');
const repoFile = (path: string) => new URL(`../../${path}`, import.meta.url);
const fixture = () => JSON.parse(blockWith(PAGE, '"name": "hello"').body);
const open: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});
async function serve(fixtures: unknown[]) {
  const server = await startScriptedModelServer({ fixtures: fixtures as never });
  open.push(server);
  return server;
}
/** The Messages-API conversation the hello fixture scripts, up to (not including) turn `turn`'s answer. */
const helloMessages = (turn: number) =>
  [
    { role: 'user', content: 'Say hello to user u_42' },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_hello_0_1', name: 'lookup_user', input: { id: 'u_42' } }],
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_hello_0_1', content: '{"name":"Ada Lovelace"}' }],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'Hello, Ada!' }] },
    { role: 'user', content: 'And again?' },
  ].slice(0, 1 + 2 * turn);
const wireTools = [{ name: 'lookup_user', input_schema: lookupUser.inputSchema }];

describe('docs/scripted-model.md', () => {
  it('has the seven blocks this file checks', () => {
    expect(fencedBlocks(PAGE).map((block) => block.info)).toEqual([
      'sh',
      'ts',
      'ts',
      'json',
      '',
      'json',
      'sh',
    ]);
  });

  it("the CLI command names a fixture that parses and flags the CLI's parser takes", () => {
    const command = blockWith(PAGE, 'scripted-server-cli.ts --fixture').body.split('\n')[0] ?? '';
    const [, script, ...args] = command.replace(/^npx /, '').split(' ');
    const cli = readFileSync(repoFile(script ?? ''), 'utf8');
    for (const flag of args.filter((arg) => arg.startsWith('--')))
      expect(cli).toMatch(new RegExp(`\\n\\s+${flag.slice(2)}: \\{ type:`));
    const file = args[args.indexOf('--fixture') + 1] ?? '';
    expect(ScriptedFixtureSchema.safeParse(JSON.parse(readFileSync(repoFile(file), 'utf8'))).success).toBe(
      true,
    );
    for (const match of page.matchAll(/^- `--(\w+) <[^>]+>`/gm))
      expect(cli).toContain(`${match[1]}: { type:`);
  });

  it('the fixture example parses with the fixture schema', () => {
    expect(ScriptedFixtureSchema.safeParse(fixture())).toMatchObject({ success: true });
  });

  it('the in-code sketch runs the fixture example through the real adapter, both turns as documented', async () => {
    const sketch = blockWith(PAGE, 'startScriptedModelServer({ fixtures: [fixture] })').body;
    for (const name of calledNames(sketch).filter((name) => name !== 'expect'))
      expect(exportedNames(), name).toContain(name);
    const server = await serve([fixture()]);
    const model = createAnthropicModel({ apiKey: 'test', baseURL: server.url });
    const reply = await model.call(
      modelRequest({ messages: [userText('Say hello to user u_42')], tools: [lookupUser] }),
    );
    expect(JSON.stringify(reply)).toContain('toolu_hello_0_1');
    const second = await postMessages(server, {
      model: 'm',
      max_tokens: 64,
      tools: wireTools,
      messages: helloMessages(1),
    });
    expect(second.status).toBe(200);
    expect(JSON.parse(second.text).content).toMatchObject([{ type: 'text', text: 'Hello, Ada!' }]);
    expect(server.failures).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it('the quoted expectation failure and past-the-end answer are what the server says', async () => {
    const server = await serve([fixture()]);
    const failed = await postMessages(server, {
      model: 'm',
      max_tokens: 64,
      tools: [...wireTools, { name: sendEmail.name, input_schema: sendEmail.inputSchema }],
      messages: helloMessages(0),
    });
    expect(failed.status).toBe(400);
    expect(server.failures[0]?.message).toBe(blockWith(PAGE, 'scripted-model expectation failed').body);
    const past = await postMessages(server, {
      model: 'm',
      max_tokens: 64,
      tools: wireTools,
      messages: helloMessages(2),
    });
    expect(past.status).toBe(400);
    const quoted = /^ {2}`(scripted-model: fixture "hello" has .*)`\.$/m.exec(page)?.[1];
    expect(JSON.parse(past.text).error.message).toBe(quoted);
  });

  it('the scripted error example fails twice with its status, then serves its text', async () => {
    const turn = JSON.parse(blockWith(PAGE, '"times": 2').body);
    const server = await serve([{ name: 'flaky', turns: [turn] }]);
    const body = { model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
    const statuses = [];
    for (let attempt = 0; attempt < 3; attempt++) statuses.push(await postMessages(server, body));
    expect(statuses.map((answer) => answer.status)).toEqual([529, 529, 200]);
    expect(JSON.parse(statuses[2]?.text ?? '').content).toMatchObject([{ type: 'text', text: turn.text }]);
  });

  it('the default error type of each status the page lists is the one the server answers', async () => {
    const row = /^\| `error\.type` \|(.*)\|$/m.exec(page)?.[1] ?? '';
    const listed = [...row.matchAll(/(\d{3}) `(\w+)`/g)].map(
      ([, status, type]) => [Number(status), type] as const,
    );
    expect(listed.length).toBeGreaterThanOrEqual(9);
    // "other 5xx" and "other 4xx": one status of each that the list does not name.
    if (row.includes('other 5xx `api_error`')) listed.push([502, 'api_error']);
    if (row.includes('other 4xx `invalid_request_error`')) listed.push([422, 'invalid_request_error']);
    const server = await serve(
      listed.map(([status]) => ({ name: `e${status}`, turns: [{ error: { status } }] })),
    );
    const body = { model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
    for (const [status, type] of listed) {
      const answer = await postMessages(server, body, { 'x-scripted-fixture': `e${status}` });
      expect({ status: answer.status, type: JSON.parse(answer.text).error.type }).toEqual({ status, type });
    }
  });

  it("the status-to-error mapping the page states is the adapter's", async () => {
    const sentence = /Errors map to the adapter's named errors: ([\s\S]*?)\. That is/.exec(page)?.[1] ?? '';
    const named = [...sentence.matchAll(/([\d/]{3,}|other 5xx|any other 4xx) → `(\w+)`/g)].flatMap(
      ([, statuses, name]) =>
        (statuses === 'other 5xx'
          ? ['502']
          : statuses === 'any other 4xx'
            ? ['422']
            : statuses!.split('/')
        ).map((status) => [Number(status), name] as const),
    );
    expect(named.length).toBeGreaterThanOrEqual(8);
    const server = await serve(
      named.map(([status]) => ({ name: `e${status}`, turns: [{ error: { status } }] })),
    );
    for (const [status, name] of named) {
      const model = createAnthropicModel({
        apiKey: 'test',
        baseURL: server.url,
        defaultHeaders: { 'x-scripted-fixture': `e${status}` },
      });
      const error = await model.call(modelRequest({ messages: [userText('hi')] })).then(
        () => undefined,
        (thrown: unknown) => thrown as Error,
      );
      expect({ status, name: error?.name }).toEqual({ status, name });
    }
  });

  it('the Bedrock sketch and the schema command name real code', () => {
    for (const name of calledNames(blockWith(PAGE, 'createBedrockModel({').body))
      expect(exportedNames(), name).toContain(name);
    const command = blockWith(PAGE, 'scripted-schema-cli.ts').body.replace(/^npx node /, '');
    expect(existsSync(repoFile(command))).toBe(true);
  });
});
