/**
 * DynamoDB Local binds its port seconds after the port was picked (the JVM's start). Another server can hold the
 * port by then: its answer must not be taken for DynamoDB's, and a picked port is picked again.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../shared/local/dynamodb-local.ts';

const picked = vi.hoisted(() => ({ ports: [] as number[] }));
vi.mock('../../shared/local/free-port.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../shared/local/free-port.ts')>();
  return { freePort: async () => picked.ports.shift() ?? (await original.freePort()) };
});

let squatter: Server | undefined;
let local: DynamoDbLocal | undefined;

afterEach(async () => {
  await local?.stop();
  local = undefined;
  await new Promise((resolve) => (squatter ? squatter.close(resolve) : resolve(undefined)));
  squatter = undefined;
});

/**
 * An HTTP server on a free loopback port that answers every request, as another test's server would: plain, or
 * as an AWS JSON service that is not DynamoDB (the local stack's Step Functions endpoint, shared/local/sfn/
 * endpoint.ts, answers an unknown operation with a request id: it once held DynamoDB Local's picked port in CI,
 * and the stack's first DescribeTable got `Unsupported operation`).
 */
async function holdPort(as: 'plain' | 'another AWS service' = 'plain'): Promise<number> {
  squatter = createServer((request, response) => {
    if (as === 'plain') return response.end('not dynamodb');
    response.writeHead(400, { 'x-amzn-requestid': 'r-1', 'content-type': 'application/x-amz-json-1.0' });
    response.end(
      JSON.stringify({
        __type: 'UnknownOperationException',
        message: `Unsupported operation '${request.headers['x-amz-target']}'`,
      }),
    );
  });
  await new Promise<void>((resolve) => squatter!.listen(0, '127.0.0.1', resolve));
  const address = squatter.address();
  return typeof address === 'object' && address ? address.port : 0;
}

describe('Function: startDynamoDbLocal', () => {
  it.each(['plain', 'another AWS service'] as const)(
    'fails with the bind error when the port it was given is held by another server (%s)',
    {
      timeout: 120_000,
    },
    async (as) => {
      // Prepare
      const port = await holdPort(as);

      // Act
      const started = startDynamoDbLocal({ port });

      // Assess
      await expect(started).rejects.toThrow(/Failed to bind/);
    },
  );

  it('picks another port when the one it picked was taken before the JVM bound it', {
    timeout: 120_000,
  }, async () => {
    // Prepare
    const taken = await holdPort('another AWS service');
    picked.ports.push(taken);

    // Act
    local = await startDynamoDbLocal();

    // Assess
    expect(local.port).not.toBe(taken);
    const answer = await fetch(local.endpoint, { method: 'POST' });
    expect(answer.headers.has('x-amzn-requestid')).toBe(true);
    expect(await answer.text()).toContain('MissingAuthenticationToken');
  });
});
