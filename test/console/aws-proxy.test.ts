/**
 * `wf console --aws`: the console on loopback signs every API call with the operator's AWS credentials
 * (SigV4, service execute-api), against a local fake API that records each request's Authorization header.
 * The sign-in token printed on the terminal is the only way in; a wrong one opens nothing and calls nothing.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../shared/cli/client.ts';
import { startAwsConsole } from '../../shared/cli/console-command.ts';
import { signedApi } from '../../shared/console/aws-proxy.ts';
import { ConsoleApiError, upstreamGuarded } from '../../shared/console/deps.ts';
import { errorPage } from '../../shared/console/error-page.ts';
import { textOf } from './support.ts';

const seen: { method: string; path: string; headers: IncomingHttpHeaders }[] = [];
const fake = createServer((request, response) => {
  seen.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers });
  const body =
    request.url === '/v1/me'
      ? { owner: '123456789012:role:ops', principal: 'arn:aws:sts::123456789012:assumed-role/ops/me' }
      : { items: [] };
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
});
let apiUrl = '';
let proxy: Awaited<ReturnType<typeof startAwsConsole>> | undefined;

beforeAll(async () => {
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await proxy?.close();
  await new Promise((resolve) => fake.close(resolve));
  vi.unstubAllEnvs();
});

/** A GET with a chosen Host header (fetch does not let a caller set Host): a DNS-rebinding page's request. */
const statusWithHost = (url: string, host: string, cookie: string) =>
  new Promise<number>((resolve, reject) => {
    const call = httpRequest(url, { headers: { host, cookie } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    call.once('error', reject).end();
  });

describe('wf console --aws', () => {
  it('signs in with the printed token and signs each API call with SigV4', async () => {
    // Prepare: static credentials in the environment, as the default provider chain reads them first.
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLECONSOLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY');
    vi.stubEnv('AWS_SESSION_TOKEN', '');
    const env = { AWS_REGION: 'eu-west-1' };
    proxy = await startAwsConsole({ url: apiUrl, port: 0, env });
    const origin = new URL(proxy.url).origin;

    // Act: a wrong token, then the right one, then a page.
    const wrong = await fetch(`${origin}/console/login`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'key=not-the-token',
      redirect: 'manual',
    });
    const callsAfterWrong = seen.length;
    const login = await fetch(`${origin}/console/login`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: `key=${encodeURIComponent(proxy.token)}`,
      redirect: 'manual',
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const runs = await fetch(`${origin}/console/runs`, { headers: { cookie } });
    const foreignHost = await statusWithHost(`${origin}/console/runs`, 'evil.example', cookie);

    // Assess
    expect(wrong.status).toBe(401);
    expect(callsAfterWrong).toBe(0);
    expect(login.status).toBe(303);
    expect(runs.status).toBe(200);
    expect(await runs.text()).toContain('No runs match.');
    expect(foreignHost).toBe(421);
    expect(seen.map((call) => call.path)).toEqual(
      expect.arrayContaining(['/v1/me', '/v1/workflows?limit=100', '/v1/runs?limit=100']),
    );
    for (const call of seen) {
      expect(call.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLECONSOLE\/\d{8}\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*, Signature=[0-9a-f]{64}$/,
      );
      expect(call.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    }
  });
});

describe('wf console --aws: the API refusing', () => {
  it("passes the API's status, code, message and fields through the signing client; an unreachable API is a 502", async () => {
    // Prepare: an API that refuses every call with a 409 naming a field, and one that is not listening.
    const refusing = createServer((_request, response) => {
      response.writeHead(409, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: {
            code: 'concurrent_update',
            message: 'it changed <concurrently>',
            fields: [{ path: 'run', message: 'stale' }],
          },
        }),
      );
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
    const api = signedApi(new ApiClient(url, { kind: 'api-key', apiKey: 'k' }));
    const gone = signedApi(new ApiClient('http://127.0.0.1:9', { kind: 'api-key', apiKey: 'k' }));
    const identity = { owner: 'o', principal: 'p' };

    // Act
    const answer = await api(identity, 'POST', '/v1/runs/run_abcdef123/cancel');
    const page = errorPage(new ConsoleApiError(answer.status, answer.body));
    const unreachable = await upstreamGuarded(gone)(identity, 'GET', '/v1/runs').catch((error) =>
      errorPage(error),
    );
    refusing.close();

    // Assess
    expect(page.status).toBe(409);
    const text = textOf(String(await page.body));
    expect(text).toContain('HTTP 409 (concurrent_update): it changed <concurrently>');
    expect(text).toContain('run: stale');
    expect(String(await page.body)).toContain('&lt;concurrently&gt;');
    expect((unreachable as ReturnType<typeof errorPage>).status).toBe(502);
  });
});
