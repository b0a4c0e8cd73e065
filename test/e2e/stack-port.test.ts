/**
 * The local stack binds its HTTP port before it builds anything from it: port 0 gets a port no other process can
 * take in between (a parallel test file did, with a port picked and released earlier), and a port that is held
 * fails the start with the bind error, leaving nothing running.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack } from '../../shared/local/stack.ts';
import { createOwnTable, type E2eStack, removeDir, startE2eStack, tempDataDir } from './support.ts';

let table: { endpoint: string; tableName: string };
let dataDir: string;
let e2e: E2eStack | undefined;
let squatter: Server | undefined;

beforeAll(async () => {
  table = await createOwnTable();
  dataDir = await tempDataDir();
});

afterAll(async () => {
  await e2e?.stack.stop();
  await new Promise((resolve) => (squatter ? squatter.close(resolve) : resolve(undefined)));
  await removeDir(dataDir);
});

describe("The local stack's HTTP port", () => {
  it('is bound before the stack is built from it, and the stack answers on it', async () => {
    // Act
    e2e = await startE2eStack(table, { dataDir });

    // Assess
    const port = Number(new URL(e2e.stack.url).port);
    expect(port).toBeGreaterThan(0);
    const answer = await fetch(`${e2e.stack.url}/v1/workflows`, {
      headers: { authorization: `Bearer ${e2e.stack.apiKey}` },
    });
    expect(answer.status).toBe(200);
  });

  it('fails the start with the bind error when the port is held', async () => {
    // Prepare
    squatter = createServer((_request, response) => response.end('not the stack'));
    await new Promise<void>((resolve) => squatter!.listen(0, '127.0.0.1', resolve));
    const address = squatter.address();
    const held = typeof address === 'object' && address ? address.port : 0;

    // Act
    const started = startLocalStack({
      port: held,
      dataDir,
      schedulerIntervalMs: 0,
      print: () => undefined,
      dynamodbEndpoint: table.endpoint,
      tableName: table.tableName,
    });

    // Assess
    await expect(started).rejects.toThrow(/EADDRINUSE/);
    const answer = await fetch(`http://127.0.0.1:${held}/`);
    expect(await answer.text()).toBe('not the stack');
  });
});
