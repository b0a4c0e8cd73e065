import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchUrlAction } from '../../shared/actions/http/fetch-url.ts';
import { useDialGuard } from '../egress/helpers.ts';
import {
  actionContext,
  definitionWith,
  type FakeRemote,
  fakeRemote,
  runParsed,
  secretsFile,
} from './support.ts';

const SECRET = 'wfsecret-FetchUrl-Zk3+Pq/88Ry=Mv02';
const definition = definitionWith({ credRefs: { feed_token: { secret: 'wf/owner-test/feed-token' } } });
const action = fetchUrlAction(definition);
const dials = useDialGuard();

const html = (body: string) =>
  `<!doctype html><html><head><title>Feed</title><script>track()</script></head><body>${body}</body></html>`;
const pages: Record<string, { type?: string; status?: number; body: string }> = {
  '/page': {
    type: 'text/html; charset=utf-8',
    body: html('<nav>menu</nav><h1>News</h1><p>Hello <a href="/more">more</a></p>'),
  },
  '/plain': { type: 'text/plain', body: 'just text\n  indented' },
  '/json': { type: 'application/json', body: '{"a":1}' },
  '/feed': { type: 'application/rss+xml', body: '<rss><item>x</item></rss>' },
  '/untyped': { body: '<!DOCTYPE html><p>sniffed</p>' },
  '/image': { type: 'image/png', body: 'PNG' },
  '/pdf': { type: 'application/pdf', body: '%PDF-1.7' },
  '/garbage': { type: 'text/plain', body: 'a\u0000b' },
  '/long': { type: 'text/plain', body: 'x'.repeat(25_000) },
  '/gone': { type: 'text/html', status: 410, body: html('<p>This page is gone.</p>') },
  '/moved': { status: 302, body: '' },
};

let remote: FakeRemote;
beforeAll(async () => {
  remote = await fakeRemote((request) => {
    const page = pages[request.path] ?? { status: 404, body: 'not found' };
    return {
      status: page.status ?? 200,
      headers: {
        ...(page.type ? { 'content-type': page.type } : {}),
        ...(request.path === '/moved' ? { location: '/plain' } : {}),
      },
      body: page.body,
    };
  });
});
afterAll(() => remote.close());

const context = () =>
  actionContext({ ports: [remote.port], secrets: secretsFile({ 'wf/owner-test/feed-token': SECRET }) });

describe('fetch_url', () => {
  it('reduces HTML to readable text with the title, headings and absolute links, and sends a plain GET', async () => {
    const outcome = await runParsed(action, { url: `${remote.origin}/page` }, context());
    expect(outcome).toEqual({
      content: `${remote.origin}/page\nHTTP 200, text/html\nTitle: Feed\n\n# News\n\nHello more (${remote.origin}/more)`,
      isError: false,
    });
    const received = remote.received.at(-1);
    expect(received).toMatchObject({ method: 'GET', path: '/page', body: '' });
    expect(received?.headers.accept).toContain('text/html');
  });

  it.each([
    ['/plain', 'text/plain', 'just text\n  indented'],
    ['/json', 'application/json', '{"a":1}'],
    ['/feed', 'application/rss+xml', '<rss><item>x</item></rss>'],
    ['/untyped', 'no content-type', 'sniffed'],
  ])('passes %s (%s) through as text', async (path, type, text) => {
    const outcome = await runParsed(action, { url: `${remote.origin}${path}` }, context());
    expect(outcome).toEqual({
      content: `${remote.origin}${path}\nHTTP 200, ${type}\n\n${text}`,
      isError: false,
    });
  });

  it.each([
    ['/image', 'image/png'],
    ['/pdf', 'application/pdf'],
    ['/garbage', 'text/plain'],
  ])('refuses the binary body of %s', async (path, type) => {
    const outcome = await runParsed(action, { url: `${remote.origin}${path}` }, context());
    expect(outcome).toEqual({
      content: `fetch_url reads text only: ${remote.origin}${path} is ${type} (binary), which is not shown.`,
      isError: true,
    });
  });

  it('caps the text at 20,000 characters by default and says so', async () => {
    const outcome = await runParsed(action, { url: `${remote.origin}/long` }, context());
    expect(outcome.isError).toBe(false);
    expect(
      outcome.content.endsWith(
        `\n\n${'x'.repeat(20_000)}\n[truncated: showing the first 20000 of 25000 characters]`,
      ),
    ).toBe(true);
    const small = fetchUrlAction(definition, { maxTextChars: 10 });
    expect((await runParsed(small, { url: `${remote.origin}/long` }, context())).content).toMatch(
      /\n\nx{10}\n\[truncated: showing the first 10 of 25000 characters\]$/,
    );
  });

  it('follows a redirect through the guard and reports the final URL', async () => {
    const outcome = await runParsed(action, { url: `${remote.origin}/moved` }, context());
    expect(outcome.content.split('\n')[0]).toBe(`${remote.origin}/plain`);
  });

  it('reports an HTTP error with a short excerpt of the page', async () => {
    const outcome = await runParsed(action, { url: `${remote.origin}/gone` }, context());
    expect(outcome).toEqual({
      content: `${remote.origin}/gone\nHTTP 410, text/html\nTitle: Feed\n\nThis page is gone.`,
      isError: true,
    });
  });

  it('refuses a URL carrying a credential of the workflow, without sending anything', async () => {
    const before = remote.received.length;
    const outcome = await runParsed(
      action,
      { url: `${remote.origin}/page?key=${encodeURIComponent(SECRET)}` },
      context(),
    );
    expect(outcome).toMatchObject({
      isError: true,
      content: expect.stringContaining('this request contains a credential value'),
    });
    expect(remote.received.length).toBe(before);
  });

  it.each([
    ['a private address', 'http://10.0.0.7/', 'private_address'],
    ['loopback on a port the policy does not open', 'http://127.0.0.1:1/', 'port'],
    ['a metadata name', 'http://metadata.google.internal/', 'blocked_host'],
  ])('answers %s with the guard’s refusal and opens no socket', async (_name, url, reason) => {
    const outcome = await runParsed(action, { url }, context());
    expect(outcome).toEqual({
      content: expect.stringContaining(`The request was not sent: ${reason}`),
      isError: true,
    });
    expect(dials.dials).toEqual([]);
  });

  it('is idempotent and reversible', () => {
    expect(action).toMatchObject({ name: 'fetch_url', idempotent: true, irreversible: false });
  });
});
