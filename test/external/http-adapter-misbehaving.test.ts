import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGuardedHttp,
  createHttpRuntimeAdapter,
  HttpRuntimeSettingsSchema,
} from '../../shared/external/http/index.ts';
import {
  type ExternalAdapter,
  ExternalConflictError,
  ExternalRefusedError,
} from '../../shared/external/index.ts';
import { secretsFile } from '../actions/support.ts';
import { FixedClock } from '../support/store.ts';

// An engine the fixture cannot imitate: it lies about what it holds, answers for other keys, redirects.
const HELD = 'a'.repeat(64);
let server: Server;
let adapter: ExternalAdapter;

beforeAll(async () => {
  server = createServer((req, res) => {
    const status = (body: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/dispatch')
      return status({ key: 'k1', incarnation: 'i1', payload_sha256: HELD, state: 'running' });
    if (req.url === '/executions/k1')
      return status({ key: 'k2', incarnation: 'i1', payload_sha256: HELD, state: 'failed' });
    // A redirect the guard itself would allow (same origin), to a valid manifest: only our refusal stops it.
    if (req.url === '/moved') return status({ incarnation: 'i1', artifacts: [] });
    res.writeHead(307, { location: '/moved' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  adapter = createHttpRuntimeAdapter(
    HttpRuntimeSettingsSchema.parse({ endpoint: `http://127.0.0.1:${port}` }),
    {
      owner: 'owner-test',
      clock: new FixedClock(),
      secrets: secretsFile({}),
      http: createGuardedHttp({ allowLoopbackPorts: [port] }),
    },
  );
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('Adapter: http-runtime against a misbehaving engine', () => {
  it('treats a "deduplicated" answer holding another payload as a conflict', async () => {
    const error = await adapter.start('k1', { mine: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExternalConflictError);
    expect(error).toMatchObject({ heldSha256: HELD });
  });

  it("reports a status answered for another key as unknown, not as that key's failure", async () => {
    expect(await adapter.observe('k1', 'i1')).toMatchObject({
      state: 'unknown',
      cause: 'malformed_response',
    });
  });

  it('refuses to follow a redirect, even one to its own origin', async () => {
    await expect(adapter.listArtifacts('k1', 'i1')).rejects.toBeInstanceOf(ExternalRefusedError);
  });
});
