import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuardedHttp, httpRuntimeFactory } from '../../shared/external/http/index.ts';
import {
  type AdapterContext,
  ArtifactRejectedError,
  ExternalNotFoundError,
  ExternalRefusedError,
  ExternalTransportError,
} from '../../shared/external/index.ts';
import { ENGINE_TOKEN, type FixtureHarness, fixtureHarness } from '../support/fixture-harness.ts';

let harness: FixtureHarness;
afterEach(() => harness.close());

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: Error) => error,
  );
}

describe('Adapter: http-runtime', () => {
  describe('Method: start', () => {
    it('sends the key as Idempotency-Key and the owner credential injected server-side', async () => {
      // Prepare
      harness = await fixtureHarness();

      // Act
      const started = await harness.adapter.start('run-1.step-a', { task: 'x' });

      // Assess
      const [dispatch] = harness.engine.requests;
      expect(dispatch?.headers['idempotency-key']).toBe('run-1.step-a');
      expect(dispatch?.headers.authorization).toBe(`Bearer ${ENGINE_TOKEN}`);
      expect(JSON.parse(dispatch?.body ?? '')).toEqual({
        payload: { task: 'x' },
        payload_sha256: started.execution.payloadSha256,
      });
      expect(harness.context.secrets.redact('owner-test', `token ${ENGINE_TOKEN}`)).toBe('token [REDACTED]');
      expect(harness.context.secrets.redact('owner-other', `token ${ENGINE_TOKEN}`)).toBe(
        `token ${ENGINE_TOKEN}`,
      );
    });

    it('refuses before sending anything when the owner credential cannot be loaded', async () => {
      harness = await fixtureHarness({ credentialSecret: 'wf/owner-test/missing-token' });
      const error = await rejectionOf(harness.adapter.start('k1', {}));
      expect(error).toBeInstanceOf(ExternalRefusedError);
      expect(error.message).toContain('missing-token');
      expect(harness.engine.count()).toBe(0);
    });

    it('refuses a credential reference of another owner before sending anything', async () => {
      harness = await fixtureHarness();
      const context: AdapterContext = {
        ...harness.context,
        credential: { owner: 'owner-other', secret: 'wf/owner-other/engine-token' },
      };
      const adapter = httpRuntimeFactory.create(
        httpRuntimeFactory.settings.parse({ endpoint: harness.engine.url }),
        context,
      );
      await expect(adapter.start('k1', {})).rejects.toThrow(/not the owner's/);
      expect(harness.engine.count()).toBe(0);
    });

    it('sends no credential header when the workflow declares none', async () => {
      harness = await fixtureHarness();
      const { credential: _none, ...context } = harness.context;
      const adapter = httpRuntimeFactory.create(
        httpRuntimeFactory.settings.parse({ endpoint: harness.engine.url }),
        context,
      );
      await adapter.start('k1', {});
      expect(harness.engine.requests[0]?.headers.authorization).toBeUndefined();
    });

    it('goes through the egress guard: a port the policy does not allow is refused, nothing sent', async () => {
      harness = await fixtureHarness();
      const context: AdapterContext = {
        ...harness.context,
        http: createGuardedHttp({ allowLoopbackPorts: [1] }),
      };
      const adapter = httpRuntimeFactory.create(
        httpRuntimeFactory.settings.parse({ endpoint: harness.engine.url }),
        context,
      );
      const error = await rejectionOf(adapter.start('k1', {}));
      expect(error).toBeInstanceOf(ExternalRefusedError);
      expect(error.message).toContain('egress denied');
      expect(harness.engine.count()).toBe(0);
    });

    it.each([
      [429, true],
      [503, true],
      [403, false],
    ])('maps a dispatch answered %i to a refusal (retryable: %s)', async (status, retryable) => {
      harness = await fixtureHarness();
      harness.engine.script('k1', { refuse: status });
      const error = await rejectionOf(harness.adapter.start('k1', {}));
      expect(error).toMatchObject({ name: 'ExternalRefusedError', status, retryable });
    });

    it('calls a start answered with a redirect off its origin sent (maybe started), not refused', async () => {
      // Prepare: an engine endpoint that takes the POST and answers 303 to another origin, which the guard
      // does not follow (egress.md: a request that sends something never leaves its origin).
      harness = await fixtureHarness();
      const posts: string[] = [];
      const server = createServer((request, response) => {
        posts.push(`${request.method} ${request.url}`);
        response.writeHead(303, { location: 'http://127.0.0.2:9/elsewhere' }).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      try {
        const adapter = httpRuntimeFactory.create(
          httpRuntimeFactory.settings.parse({ endpoint: `http://127.0.0.1:${port}` }),
          { ...harness.context, http: createGuardedHttp({ allowLoopbackPorts: [port] }) },
        );

        // Act
        const error = await rejectionOf(adapter.start('k1', {}));

        // Assess: the engine received the start, so the run must treat it as possibly started.
        expect(posts).toHaveLength(1);
        expect(error).toMatchObject({ name: 'ExternalTransportError', sent: true });
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('says nothing was sent when the engine cannot be reached at all', async () => {
      harness = await fixtureHarness();
      await harness.engine.close();
      const error = await rejectionOf(harness.adapter.start('k1', {}));
      expect(error).toMatchObject({ name: 'ExternalTransportError', sent: false, kind: 'transport' });
    });

    it('refuses a key that is not URL-safe without sending it', async () => {
      harness = await fixtureHarness();
      await expect(harness.adapter.start('../admin', {})).rejects.toBeInstanceOf(ExternalRefusedError);
      expect(harness.engine.count()).toBe(0);
    });
  });

  describe('Method: observe', () => {
    it('reports an unreadable answer as unknown (malformed_response), not failed', async () => {
      harness = await fixtureHarness();
      const { execution } = await harness.adapter.start('k1', {});
      harness.engine.fault({ kind: 'garbage' });
      const seen = await harness.adapter.observe('k1', execution.incarnation);
      expect(seen).toMatchObject({ state: 'unknown', cause: 'malformed_response' });
    });

    it.each([400, 401, 403, 409, 429])(
      'reports a status read answered %i as unknown, never a verdict',
      async (status) => {
        harness = await fixtureHarness();
        const { execution } = await harness.adapter.start('k1', {});
        harness.engine.fault({ kind: 'status', status }, { route: 'status', times: 1 });
        const seen = await harness.adapter.observe('k1', execution.incarnation);
        expect(seen).toMatchObject({ state: 'unknown', cause: status === 429 ? 'engine_error' : 'refused' });
        expect(await harness.adapter.observe('k1', execution.incarnation)).not.toMatchObject({
          state: 'unknown',
        });
      },
    );

    it('reports an engine that forgot the execution on restart as not found', async () => {
      harness = await fixtureHarness();
      const { execution } = await harness.adapter.start('k1', {});
      harness.engine.restart({ forget: true });
      await expect(harness.adapter.observe('k1', execution.incarnation)).rejects.toBeInstanceOf(
        ExternalNotFoundError,
      );
    });

    it('stamps observations with the injected clock', async () => {
      harness = await fixtureHarness();
      const { execution } = await harness.adapter.start('k1', {});
      const seen = await harness.adapter.observe('k1', execution.incarnation);
      expect(seen.observedAtMs).toBe(harness.context.clock.nowMs());
    });
  });

  describe('Method: openArtifact', () => {
    it('never fetches a path outside the manifest (traversal included)', async () => {
      harness = await fixtureHarness();
      harness.engine.script('k1', { artifacts: [{ path: 'a.txt', content: 'a' }] });
      const { execution } = await harness.adapter.start('k1', {});
      const error = await rejectionOf(harness.adapter.openArtifact('k1', execution.incarnation, '../a.txt'));
      expect(error).toBeInstanceOf(ArtifactRejectedError);
      expect(harness.engine.count('artifact')).toBe(0);
    });

    it('rejects a body larger than the cap as a size mismatch, keeping the evidence it can', async () => {
      harness = await fixtureHarness({ settings: { maxArtifactBytes: 8 } });
      harness.engine.script('k1', { artifacts: [{ path: 'a.txt', content: '12345678', corrupt: 'size' }] });
      const { execution } = await harness.adapter.start('k1', {});
      const error = await rejectionOf(harness.adapter.openArtifact('k1', execution.incarnation, 'a.txt'));
      expect(error).toBeInstanceOf(ArtifactRejectedError);
      expect((error as ArtifactRejectedError).evidence).toMatchObject({
        reason: 'size_mismatch',
        expected: { path: 'a.txt', size: 8 },
        received: { path: 'a.txt', size: 9, sha256: null },
      });
    });

    it('refuses an artifact whose manifest size is over the cap without fetching it', async () => {
      harness = await fixtureHarness({ settings: { maxArtifactBytes: 4 } });
      harness.engine.script('k1', { artifacts: [{ path: 'big.bin', content: '12345' }] });
      const { execution } = await harness.adapter.start('k1', {});
      const error = await rejectionOf(harness.adapter.openArtifact('k1', execution.incarnation, 'big.bin'));
      expect(error).toBeInstanceOf(ExternalRefusedError);
      expect(error.message).toContain('over maxArtifactBytes 4');
      expect(harness.engine.count('artifact')).toBe(0);
    });

    it('maps a manifest listing a traversal path to a transport failure (malformed), not a verified artifact', async () => {
      harness = await fixtureHarness();
      harness.engine.script('k1', { artifacts: [{ path: 'x/../../etc', content: 'a' }] });
      const { execution } = await harness.adapter.start('k1', {});
      const error = await rejectionOf(harness.adapter.listArtifacts('k1', execution.incarnation));
      expect(error).toBeInstanceOf(ExternalTransportError);
      expect(error.message).toContain('manifest path');
    });
  });
});
