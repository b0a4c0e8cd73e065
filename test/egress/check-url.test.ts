import { describe, expect, it } from 'vitest';
import { checkUrl, type EgressPolicy, EgressPolicyError } from '../../shared/egress/index.ts';
import { DENIED_ADDRESSES, PUBLIC_ADDRESSES, urlHost } from './cases.ts';
import { scriptedResolver } from './helpers.ts';

const PUBLIC = '93.184.216.34';

describe('checkUrl', () => {
  it.each(DENIED_ADDRESSES)(
    'denies a name resolving to $label ($address) as $reason',
    async ({ address, reason }) => {
      // Prepare
      const resolve = scriptedResolver({ 'target.test': [address] });

      // Act
      const verdict = await checkUrl('https://target.test/path', { resolve });

      // Assess
      expect(verdict).toMatchObject({ allowed: false, reason });
      expect(resolve.calls).toEqual(['target.test']);
    },
  );

  it.each(DENIED_ADDRESSES.filter((c) => !c.address.includes('%')))(
    'denies the literal URL host of $label ($address) without resolving',
    async ({ address, reason }) => {
      const resolve = scriptedResolver({});

      const verdict = await checkUrl(`http://${urlHost(address)}/`, { resolve });

      expect(verdict).toMatchObject({ allowed: false, reason });
      expect(resolve.calls).toEqual([]);
    },
  );

  it.each(PUBLIC_ADDRESSES)('allows a name resolving to the public address %s', async (address) => {
    const resolve = scriptedResolver({ 'api.example.com': [address] });

    const verdict = await checkUrl('https://api.example.com/v1', { resolve });

    expect(verdict).toEqual({ allowed: true, addresses: [address] });
  });

  it.each([
    ['http://2130706433/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://127.0.0.1./', 'loopback'],
    ['http://%31%32%37.0.0.1/', 'loopback'],
    ['http://0/', 'unspecified'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:7f00:1]/', 'loopback'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', 'loopback'],
    ['http://[::127.0.0.1]/', 'loopback'],
    ['http://0xa9fea9fe/latest/meta-data/', 'metadata'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://[::ffff:a9fe:a9fe]/', 'metadata'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'metadata'],
    ['http://3232235777/', 'private_address'],
  ])('normalises %s and denies it as %s', async (url, reason) => {
    expect(await checkUrl(url, { resolve: scriptedResolver({}) })).toMatchObject({ allowed: false, reason });
  });

  it.each([
    'file:///etc/passwd',
    'ftp://example.com/file',
    'gopher://example.com:70/_x',
    'data:text/plain,hello',
    'javascript:alert(1)',
    'ws://example.com/',
    'wss://example.com/',
    'blob:https://example.com/uuid',
    'dict://example.com:11211/',
  ])('refuses the scheme of %s', async (url) => {
    expect(await checkUrl(url)).toMatchObject({ allowed: false, reason: 'scheme' });
  });

  it.each(['not a url', '/relative/path', '', 'http://'])('refuses %j as an invalid URL', async (url) => {
    expect(await checkUrl(url)).toMatchObject({ allowed: false, reason: 'invalid_url' });
  });

  it.each([
    'http://user:pass@example.com/',
    'http://user@example.com/',
    'http://:secret@example.com/',
    'http://example.com@127.0.0.1/',
  ])('refuses userinfo in %s', async (url) => {
    expect(await checkUrl(url)).toMatchObject({ allowed: false, reason: 'userinfo' });
  });

  it.each([
    ['http://api.example.com:8080/', {}, false],
    ['https://api.example.com:22/', {}, false],
    ['http://api.example.com:443/', {}, true],
    ['https://api.example.com:8443/', { allowedPorts: [443, 8443] }, true],
    ['https://api.example.com/', { allowedPorts: [8443] }, false],
    ['http://api.example.com:9000/', { allowLoopbackPorts: [9000] }, false],
  ] as const)('port of %s with %o allowed: %s', async (url, policy, allowed) => {
    const resolve = scriptedResolver({ 'api.example.com': [PUBLIC] });

    const verdict = await checkUrl(url, { ...policy, resolve } as EgressPolicy);

    expect(verdict.allowed).toBe(allowed);
    if (!verdict.allowed) expect(verdict.reason).toBe('port');
  });

  it.each([
    'http://localhost/',
    'http://LocalHost./',
    'http://a.b.localhost/',
    'http://localhost.localdomain/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://instance-data/latest/meta-data/',
    'http://ip-10-0-0-1.ec2.internal/',
    'https://sts.amazonaws.com/?Action=GetCallerIdentity',
    'https://sts.us-east-1.amazonaws.com/',
    'https://secretsmanager.us-east-1.amazonaws.com/',
    'https://states.us-east-1.amazonaws.com/',
    'https://lambda.us-east-1.amazonaws.com/',
    'https://dynamodb.us-east-1.amazonaws.com/',
    'https://iam.amazonaws.com/',
    'https://123456789012.ddb.us-east-1.amazonaws.com/',
    'https://123456789012.s3-control.us-east-1.amazonaws.com/v20180820/configuration/publicAccessBlock',
    'https://queue.amazonaws.com/123456789012/jobs',
    'https://us-west-2.queue.amazonaws.com/123456789012/jobs',
    'https://sts.us-east-1.api.aws/',
    'https://printer.local/',
    'http://intranet/',
  ])('blocks %s even when it is allow-listed', async (url) => {
    // Prepare: the workflow allow-lists exactly this host, and it even resolves to a public address.
    const host = new URL(url).hostname.replace(/\.$/, '');
    const resolve = scriptedResolver({ [host]: [PUBLIC] });

    // Act
    const verdict = await checkUrl(url, { allowedHosts: [host], resolve });

    // Assess
    expect(verdict).toMatchObject({ allowed: false, reason: 'blocked_host' });
    expect(resolve.calls).toEqual([]);
  });

  it.each([
    'https://abc123.execute-api.us-east-1.amazonaws.com/prod',
    'https://my-bucket.s3.us-east-1.amazonaws.com/key',
    'https://my-lb-123.us-east-1.elb.amazonaws.com/',
    'https://ddb.s3.amazonaws.com/key',
    'https://queue.s3.us-east-1.amazonaws.com/key',
  ])('leaves the customer endpoint %s to the address checks', async (url) => {
    const resolve = scriptedResolver({ [new URL(url).hostname]: [PUBLIC] });

    expect(await checkUrl(url, { resolve })).toEqual({ allowed: true, addresses: [PUBLIC] });
  });

  it.each(['https://api.wf.example.com/runs', 'https://eu.approvals.example.com/approve'])(
    'blocks the policy blockedHosts %s even when allow-listed',
    async (url) => {
      const resolve = scriptedResolver({ [new URL(url).hostname]: [PUBLIC] });
      const policy: EgressPolicy = {
        allowedHosts: ['*.example.com'],
        blockedHosts: ['api.wf.example.com', '*.approvals.example.com'],
        resolve,
      };

      expect(await checkUrl(url, policy)).toMatchObject({ allowed: false, reason: 'blocked_host' });
    },
  );

  it.each([
    ['https://a.example.com/', true],
    ['https://a.b.example.com/', true],
    ['https://api.partner.net/', true],
    ['https://example.com/', false],
    ['https://badexample.com/', false],
    ['https://example.com.evil.net/', false],
    ['https://partner.net/', false],
  ])('with allowedHosts [*.example.com, api.partner.net], %s allowed: %s', async (url, allowed) => {
    const resolve = scriptedResolver({ [new URL(url).hostname]: [PUBLIC] });

    const verdict = await checkUrl(url, { allowedHosts: ['*.example.com', 'api.partner.net'], resolve });

    expect(verdict.allowed).toBe(allowed);
    if (!verdict.allowed) expect(verdict.reason).toBe('host_not_allowed');
  });

  it('denies every host when allowedHosts is empty', async () => {
    const resolve = scriptedResolver({ 'api.example.com': [PUBLIC] });

    expect(await checkUrl('https://api.example.com/', { allowedHosts: [], resolve })).toMatchObject({
      allowed: false,
      reason: 'host_not_allowed',
    });
  });

  it.each([
    [[PUBLIC, '10.0.0.1'], 'private_address'],
    [['10.0.0.1', PUBLIC], 'private_address'],
    [[PUBLIC, '169.254.169.254'], 'metadata'],
    [['2606:4700:4700::1111', 'fd00::1'], 'private_address'],
    [[PUBLIC, '::ffff:127.0.0.1'], 'loopback'],
  ])('denies mixed answers %j (one bad answer denies all)', async (answers, reason) => {
    const resolve = scriptedResolver({ 'mixed.test': answers });

    expect(await checkUrl('https://mixed.test/', { resolve })).toMatchObject({ allowed: false, reason });
  });

  it('returns every checked address, canonical and de-duplicated', async () => {
    const resolve = scriptedResolver({
      'multi.test': [PUBLIC, '8.8.8.8', PUBLIC, '2606:4700:4700:0:0:0:0:1111'],
    });

    expect(await checkUrl('https://multi.test/', { resolve })).toEqual({
      allowed: true,
      addresses: [PUBLIC, '8.8.8.8', '2606:4700:4700::1111'],
    });
  });

  it.each([
    ['a resolver failure', scriptedResolver({}), 'dns_failure'],
    ['an empty answer', async () => [], 'dns_failure'],
    [
      'a non-address answer',
      async () => [{ address: 'evil.example', family: 4 as const }],
      'invalid_address',
    ],
    ['a resolver that never answers', () => new Promise<never>(() => {}), 'dns_failure'],
  ])('denies on %s', async (_label, resolve, reason) => {
    const verdict = await checkUrl('https://api.example.com/', { resolve, headersTimeoutMs: 100 });

    expect(verdict).toMatchObject({ allowed: false, reason });
  });

  it.each([
    [{ allowLoopbackPorts: [8123] }, 'http://127.0.0.1:8123/', true],
    [{ allowLoopbackPorts: [8123] }, 'http://[::1]:8123/', true],
    [{ allowLoopbackPorts: [8123] }, 'http://127.0.0.1:8124/', false],
    [{ allowLoopbackPorts: [8123] }, 'http://[::ffff:127.0.0.1]:8123/', false],
    [{ allowLoopbackPorts: [8123] }, 'http://0.0.0.0:8123/', false],
    [{}, 'http://127.0.0.1:80/', false],
  ] as const)('with %o, %s allowed: %s', async (policy, url, allowed) => {
    const verdict = await checkUrl(url, { ...policy } as EgressPolicy);

    expect(verdict.allowed).toBe(allowed);
  });

  it('lets localhost through on an allowLoopbackPorts port, resolved and checked like any name', async () => {
    const resolve = scriptedResolver({ localhost: ['127.0.0.1', '::1'] });

    const verdict = await checkUrl('http://localhost:8123/', { allowLoopbackPorts: [8123], resolve });

    expect(verdict).toEqual({ allowed: true, addresses: ['127.0.0.1', '::1'] });
  });

  it('still denies localhost when it resolves somewhere other than loopback', async () => {
    const resolve = scriptedResolver({ localhost: ['10.0.0.5'] });

    const verdict = await checkUrl('http://localhost:8123/', { allowLoopbackPorts: [8123], resolve });

    expect(verdict).toMatchObject({ allowed: false, reason: 'private_address' });
  });

  it.each([
    [{ allowedHosts: ['https://api.example.com'] }, 'allowedHosts'],
    [{ allowedHosts: ['*'] }, 'allowedHosts'],
    [{ blockedHosts: ['a.*.example.com'] }, 'blockedHosts'],
    [{ allowedPorts: [0] }, 'allowedPorts'],
    [{ allowLoopbackPorts: [70_000] }, 'allowLoopbackPorts'],
    [{ maxResponseBytes: -1 }, 'maxResponseBytes'],
    [{ totalTimeoutMs: 1.5 }, 'totalTimeoutMs'],
    [{ maxRedirects: -1 }, 'maxRedirects'],
  ] as const)('rejects the malformed policy %o', async (policy, field) => {
    await expect(checkUrl('https://api.example.com/', policy as EgressPolicy)).rejects.toMatchObject({
      name: 'EgressPolicyError',
      field,
    });
    await expect(checkUrl('https://api.example.com/', policy as EgressPolicy)).rejects.toBeInstanceOf(
      EgressPolicyError,
    );
  });
});
