import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressDeniedError } from '../../shared/egress/index.ts';
import { scriptedResolver, startServer, type TestServer, useDialGuard } from './helpers.ts';
import { getForecast, makeEgress } from './usage-example.ts';

describe('docs/egress.md usage example', () => {
  const guard = useDialGuard();
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((req, res) => {
      const city = new URL(req.url ?? '/', 'http://x').searchParams.get('city');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ city, tempC: 21 }));
    });
  });
  afterAll(async () => {
    await server.close();
  });
  // Tests only: the example's host resolves to the loopback listener, whose port is opened for loopback.
  const testPolicy = () => ({
    resolve: scriptedResolver({ 'weather.example.com': ['127.0.0.1'], 'api.wf.example.com': ['127.0.0.1'] }),
    allowLoopbackPorts: [server.port],
  });

  it('is quoted verbatim in docs/egress.md', async () => {
    const source = await readFile(new URL('./usage-example.ts', import.meta.url), 'utf8');
    const doc = await readFile(new URL('../../docs/egress.md', import.meta.url), 'utf8');
    const snippet = source.split('// docs:start\n')[1]?.split('// docs:end')[0];

    expect(snippet).toBeTruthy();
    expect(doc).toContain(snippet);
  });

  it('fetches the forecast with the bound key', async () => {
    const egress = makeEgress(testPolicy());

    const forecast = await getForecast(
      egress,
      `http://weather.example.com:${server.port}`,
      'sk-weather',
      'Zürich',
    );

    expect(forecast).toEqual({ city: 'Zürich', tempC: 21 });
    expect(server.requests.at(-1)?.headers['x-api-key']).toBe('sk-weather');
  });

  it.each([
    ['the runtime API host', (port: number) => `http://api.wf.example.com:${port}`, 'blocked_host'],
    ['the metadata service', () => 'http://169.254.169.254', 'metadata'],
    ['a host outside *.example.com', () => 'https://example.org', 'host_not_allowed'],
  ])('refuses %s without opening a socket', async (_label, baseUrl, reason) => {
    const egress = makeEgress(testPolicy());
    const sockets = server.sockets();

    const error = await getForecast(egress, baseUrl(server.port), 'sk-weather', 'Bern').catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(EgressDeniedError);
    expect(error).toMatchObject({ reason });
    expect(server.sockets()).toBe(sockets);
    expect(guard.dials).toEqual([]);
  });
});
