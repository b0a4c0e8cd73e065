import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRequestAction } from '../../shared/actions/http/http-request.ts';
import { REDACTED } from '../../shared/credentials/redactor.ts';
import { useDialGuard } from '../egress/helpers.ts';
import {
  actionContext,
  definitionWith,
  type FakeRemote,
  fakeRemote,
  runParsed,
  secretsFile,
} from './support.ts';

const SECRET = 'wfsecret-HttpReq-7Qm2+Zp/9vLx=Kd41';
const definition = definitionWith({ credRefs: { api_token: { secret: 'wf/owner-test/api-token' } } });
const action = httpRequestAction(definition);
const dials = useDialGuard();

let remote: FakeRemote;
beforeAll(async () => {
  remote = await fakeRemote((request) =>
    request.path.startsWith('/missing')
      ? { status: 404, body: 'no such thing' }
      : request.path.startsWith('/binary')
        ? { headers: { 'content-type': 'image/png' }, body: '\u0000PNG\u0000\u0000' }
        : {
            status: 201,
            headers: { 'content-type': 'application/json', 'set-cookie': 'session=abc', etag: '"v1"' },
            body: '{"created":true}',
          },
  );
});
afterAll(() => remote.close());

const context = () =>
  actionContext({ ports: [remote.port], secrets: secretsFile({ 'wf/owner-test/api-token': SECRET }) });

describe('http_request', () => {
  it('sends the method, URL, headers and body through the guard and returns status, selected headers and body', async () => {
    // Prepare
    const before = remote.received.length;

    // Act
    const outcome = await runParsed(
      action,
      {
        method: 'POST',
        url: `${remote.origin}/items?x=1`,
        headers: {
          'X-Trace': 'abc',
          'Idempotency-Key': 'model-made',
          Cookie: 'a=b',
          'X-Forwarded-For': '10.0.0.1',
        },
        body: { name: 'widget' },
      },
      context(),
    );

    // Assess
    expect(outcome).toEqual({
      content: 'HTTP 201\ncontent-type: application/json\netag: "v1"\n\n{"created":true}',
      isError: false,
    });
    const [received] = remote.received.slice(before);
    expect(received).toMatchObject({ method: 'POST', path: '/items?x=1', body: '{"name":"widget"}' });
    expect(received?.headers).toMatchObject({
      'x-trace': 'abc',
      'content-type': 'application/json',
      'idempotency-key': 'idem_run1_t0_toolu_1',
    });
    expect(received?.headers.cookie).toBeUndefined();
    expect(received?.headers['x-forwarded-for']).toBeUndefined();
  });

  it('flags HTTP errors, hides binary bodies and caps long text, saying so', async () => {
    const ctx = context();
    const missing = await runParsed(action, { url: `${remote.origin}/missing` }, ctx);
    expect(missing).toEqual({
      content: expect.stringMatching(/^HTTP 404\n[\s\S]*\n\nno such thing$/),
      isError: true,
    });
    const binary = await runParsed(action, { url: `${remote.origin}/binary` }, ctx);
    expect(binary.content).toMatch(/\[binary body of \d+ characters \(image\/png\), not shown\]$/);
    const short = httpRequestAction(definition, { maxTextChars: 5 });
    const capped = await runParsed(short, { method: 'GET', url: `${remote.origin}/` }, ctx);
    expect(capped.content).toMatch(/\n\n\{"cre\n\[truncated: showing the first 5 of 16 characters\]$/);
  });

  const encodings: [string, (secret: string) => string][] = [
    ['raw', (s) => s],
    ['base64', (s) => Buffer.from(s).toString('base64')],
    ['base64url', (s) => Buffer.from(s).toString('base64url')],
    ['hex', (s) => Buffer.from(s).toString('hex')],
    ['URL-encoded', (s) => encodeURIComponent(s)],
    [
      'fully percent-encoded',
      (s) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
    ],
  ];
  const places: [string, (value: string) => Record<string, unknown>][] = [
    ['the URL', (v) => ({ url: `${remote.origin}/collect?t=${v}` })],
    ['a header', (v) => ({ url: `${remote.origin}/collect`, headers: { 'X-Api-Key': `Token ${v}` } })],
    ['the body', (v) => ({ method: 'POST', url: `${remote.origin}/collect`, body: `{"leak":"${v}"}` })],
  ];
  const unicodeEscaped = (s: string) =>
    [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  const cases = [
    ...encodings.flatMap(([encoding, encode]) =>
      places.map(([place, build]) => [encoding, place, encode, build] as const),
    ),
    // JSON escapes only mean the value in a JSON body.
    ['JSON \\u-escaped', 'the body', unicodeEscaped, places[2]![1]] as const,
  ];

  it.each(cases)(
    'refuses a %s credential in %s before anything is sent, even in a fresh process',
    async (_e, _p, encode, build) => {
      // Prepare: a fresh secrets port that has resolved nothing yet (a cold Lambda container)
      const ctx = context();
      const before = remote.received.length;

      // Act
      const outcome = await runParsed(action, build(encode(SECRET)), ctx);

      // Assess
      expect(outcome).toEqual({
        content:
          'Refused: this request contains a credential value; credentials are injected by the runtime, never supplied in a request. Nothing was sent.',
        isError: true,
      });
      expect(remote.received.length).toBe(before);
    },
  );

  it('refuses a request that carries the redaction marker (a credential was cut out of the model’s call)', async () => {
    const before = remote.received.length;
    const outcome = await runParsed(
      action,
      { url: `${remote.origin}/x`, headers: { Authorization: `Bearer ${REDACTED}` } },
      context(),
    );
    expect(outcome).toMatchObject({
      isError: true,
      content: expect.stringContaining('a redacted credential is in it'),
    });
    expect(remote.received.length).toBe(before);
  });

  it('fails closed when a credential of the workflow cannot be loaded to check against', async () => {
    const before = remote.received.length;
    const ctx = actionContext({ ports: [remote.port], secrets: secretsFile({}) });
    const outcome = await runParsed(action, { url: `${remote.origin}/x` }, ctx);
    expect(outcome).toMatchObject({
      isError: true,
      content: expect.stringContaining("could not load the workflow's credential 'api_token'"),
    });
    expect(remote.received.length).toBe(before);
  });

  it('answers an egress refusal as a readable error, never reaching the address', async () => {
    const outcome = await runParsed(action, { url: 'http://169.254.169.254/latest/meta-data/' }, context());
    expect(dials.dials).toEqual([]);
    expect(outcome).toEqual({
      content: expect.stringMatching(/^The request was not sent: metadata \(egress denied: metadata/),
      isError: true,
    });
  });

  it.each([
    ['a GET with a body', { method: 'GET', url: 'https://api.example.com/', body: 'x' }, 'body'],
    ['a non-http URL', { url: 'file:///etc/passwd' }, 'url'],
    [
      'a header with a line break',
      { url: 'https://api.example.com/', headers: { 'X-A': 'a\r\nHost: evil' } },
      'headers',
    ],
    ['a bad header name', { url: 'https://api.example.com/', headers: { 'Bad Name': 'x' } }, 'headers'],
    ['an unknown method', { method: 'TRACE', url: 'https://api.example.com/' }, 'method'],
    ['an unknown field', { url: 'https://api.example.com/', credentials: 'x' }, ''],
  ])('rejects %s at the schema (the gate denies it)', (_name, input, path) => {
    const parsed = action.input.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path.join('.') ?? '').toContain(path);
  });

  it('is not idempotent and not irreversible (its gate comes from the workflow)', () => {
    expect(action).toMatchObject({ name: 'http_request', idempotent: false, irreversible: false });
  });
});
