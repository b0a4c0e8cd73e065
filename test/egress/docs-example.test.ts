import { readFile } from 'node:fs/promises';
import ipaddr from 'ipaddr.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as egress from '../../shared/egress/index.ts';
import {
  ADDRESS_DENY_REASONS,
  classifyAddress,
  DENY_REASONS,
  EGRESS_DEFAULTS,
  EgressDeniedError,
  LIMIT_REASONS,
} from '../../shared/egress/index.ts';
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

describe('docs/egress.md reference', () => {
  const doc = () => readFile(new URL('../../docs/egress.md', import.meta.url), 'utf8');
  const section = (text: string, heading: string) =>
    text.split(`\n## ${heading}\n`)[1]?.split('\n## ')[0] ?? '';

  /** A range's first and last address. */
  const bounds = ([address, bits]: [ipaddr.IPv4 | ipaddr.IPv6, number]) => {
    const family = address.kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6;
    const cidr = `${address.toString()}/${bits}`;
    return [family.networkAddressFromCIDR(cidr), family.broadcastAddressFromCIDR(cidr)] as const;
  };

  it('names only what shared/egress/index.ts exports: the API block and the "Also exported" list', async () => {
    // Prepare
    const api = section(await doc(), 'API');
    const imported = /import \{([^}]+)\}/.exec(api)?.[1] ?? '';
    const alsoExported = /Also exported: ([\s\S]+?)\./.exec(api)?.[1] ?? '';
    const names = [
      ...imported.split(',').map((name) => name.trim()),
      ...[...alsoExported.matchAll(/`(\w+)`/g)].map((match) => match[1] as string),
    ].filter((name) => name !== '');
    // Assess
    expect(names.length).toBeGreaterThan(20);
    for (const name of names) expect([name, name in egress]).toEqual([name, true]);
  });

  it("the policy table's defaults are EGRESS_DEFAULTS", async () => {
    // Prepare
    const policy = section(await doc(), 'Policy');
    const row = (field: string) => policy.split('\n').find((line) => line.startsWith(`| \`${field}?`)) ?? '';
    // Assess
    expect(row('allowedPorts')).toContain(`\`[${EGRESS_DEFAULTS.allowedPorts.join(', ')}]\``);
    expect(row('maxResponseBytes')).toContain(
      EGRESS_DEFAULTS.maxResponseBytes.toLocaleString('fr').replace(/\s/g, ' '),
    );
    expect(row('totalTimeoutMs')).toContain(
      EGRESS_DEFAULTS.totalTimeoutMs.toLocaleString('fr').replace(/\s/g, ' '),
    );
    expect(row('headersTimeoutMs')).toContain(
      EGRESS_DEFAULTS.headersTimeoutMs.toLocaleString('fr').replace(/\s/g, ' '),
    );
    expect(row('maxHeaderBytes')).toContain(
      EGRESS_DEFAULTS.maxHeaderBytes.toLocaleString('fr').replace(/\s/g, ' '),
    );
    expect(row('maxRedirects')).toContain(`| ${EGRESS_DEFAULTS.maxRedirects} |`);
  });

  it('the denied-ranges table is what classifyAddress answers, row by row in its order', async () => {
    // Prepare: each row's ranges with a literal reason; first match wins, so each range is probed at its first or
    // last address that no earlier row's range holds.
    const rows = section(await doc(), 'Denied address ranges')
      .split('\n')
      .filter((line) => /^\| [0-9a-f:.]+\/\d+/.test(line))
      .map((line) => {
        const [cidrs = '', reason = ''] = line.split('|').slice(1, 3);
        return {
          cidrs: cidrs.split(',').map((c) => ipaddr.parseCIDR(c.trim())),
          reason: /^ `(\w+)` $/.exec(reason)?.[1],
        };
      });
    const earlier: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
    let probed = 0;
    for (const { cidrs, reason } of rows) {
      for (const cidr of cidrs) {
        const [first, last] = bounds(cidr);
        const sample = [first, last].find((address) =>
          earlier.every((range) => address.kind() !== range[0].kind() || !address.match(range)),
        );
        // Assess
        if (reason !== undefined && sample !== undefined) {
          expect([cidr.join('/'), classifyAddress(sample.toString())]).toMatchObject([
            cidr.join('/'),
            { reason },
          ]);
          probed++;
        }
      }
      earlier.push(...cidrs);
    }
    expect(probed).toBeGreaterThan(30);
    // The IPv4-mapped row's own examples.
    expect(classifyAddress('::ffff:127.0.0.1')).toMatchObject({ reason: 'loopback' });
    expect(classifyAddress('::ffff:8.8.8.8')).toMatchObject({ reason: 'ipv4_embedded' });
  });

  it("the errors table's reasons are the guard's, each in its class", async () => {
    // Prepare
    const errors = section(await doc(), 'Errors');
    const reasonsOf = (label: string) => {
      const line = errors.split('\n').find((l) => l.startsWith(`| \`${label}\``)) ?? '';
      return [...(line.split('|')[2] ?? '').matchAll(/`(\w+)`/g)].map((match) => match[1] as string);
    };
    // Assess: the denied row lists every non-address reason ("address reasons (below)" covers the rest)
    expect(reasonsOf('EgressDeniedError').sort()).toEqual(
      DENY_REASONS.filter((r) => !(ADDRESS_DENY_REASONS as readonly string[]).includes(r)).sort(),
    );
    expect(reasonsOf('EgressLimitError').sort()).toEqual([...LIMIT_REASONS].sort());
  });
});
