/**
 * `wf console --aws` sign-in: only a wrong token is "That key was not accepted."; with the right token, a
 * refused or unreachable `GET /v1/me` still signs nobody in, and the page says why (API Gateway's own
 * message and type, and for a 401 that the console needs a stack deployed with apiAuth=iam).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../shared/cli/client.ts';
import { awsConsoleApp } from '../../shared/console/aws-proxy.ts';
import { textOf } from './support.ts';

let answer: (response: ServerResponse) => void = (response) => response.writeHead(500).end();
const fake = createServer((_request, response) => answer(response));
let url = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => fake.close(resolve)));

const ORIGIN = 'http://127.0.0.1:8788';
async function signIn(apiUrl: string, key: string) {
  const app = awsConsoleApp({
    client: new ApiClient(apiUrl, { kind: 'api-key', apiKey: 'unused' }),
    token: 'TOKEN',
    clock: { nowMs: () => Date.parse('2026-12-02T13:00:00Z') },
    origin: ORIGIN,
  });
  const response = await app.request('/console/login', {
    method: 'POST',
    headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
    body: `key=${key}`,
  });
  return {
    status: response.status,
    text: textOf(await response.text()),
    cookie: response.headers.get('set-cookie'),
  };
}

describe('wf console --aws: why sign-in failed', () => {
  it('with the right token and expired AWS credentials: the gateway message, no session', async () => {
    answer = (response) =>
      response
        .writeHead(403, { 'content-type': 'application/json', 'x-amzn-errortype': 'ExpiredTokenException' })
        .end(JSON.stringify({ message: 'The security token included in the request is expired' }));
    const page = await signIn(url, 'TOKEN');
    expect(page.status).toBe(502);
    expect(page.cookie).toBeNull();
    expect(page.text).not.toContain('That key was not accepted.');
    expect(page.text).toContain(
      `Not signed in: the API at ${url} refused GET /v1/me: The security token included in the request is expired (ExpiredTokenException, HTTP 403).`,
    );
  });

  it('a 401 (a JWT authorizer) says the console needs apiAuth=iam', async () => {
    answer = (response) =>
      response
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ message: 'Unauthorized' }));
    const page = await signIn(url, 'TOKEN');
    expect(page.status).toBe(502);
    expect(page.text).toContain('refused GET /v1/me: Unauthorized (http_401, HTTP 401).');
    expect(page.text).toContain('apiAuth=iam');
  });

  it('an unreachable API says so', async () => {
    const page = await signIn('http://127.0.0.1:1', 'TOKEN');
    expect(page.status).toBe(502);
    expect(page.text).toContain(
      'Not signed in: the API at http://127.0.0.1:1 could not be asked who you are',
    );
  });

  it('a wrong token is still "not accepted", and asks the API nothing', async () => {
    let asked = 0;
    answer = (response) => {
      asked += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    };
    const page = await signIn(url, 'WRONG');
    expect(page.status).toBe(401);
    expect(page.text).toContain('That key was not accepted.');
    expect(asked).toBe(0);
  });
});
