import { createServer, type Server } from 'node:net';
import { SendTaskSuccessCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import { localSfnClients } from '../../shared/local/sfn-clients.ts';

/**
 * A loopback endpoint that resets the first `resets` connections as soon as a request arrives (a keep-alive socket
 * closed as it was reused looks the same to the client), then answers every request as StartExecution does.
 */
async function resettingEndpoint(
  resets: number,
): Promise<{ url: string; requests: () => number; server: Server }> {
  let connections = 0;
  let requests = 0;
  const server = createServer((socket) => {
    const index = connections++;
    socket.once('data', () => {
      requests++;
      if (index < resets) return socket.resetAndDestroy();
      const body = JSON.stringify({
        executionArn: 'arn:aws:states:local:0:execution:m:run_1',
        startDate: 1_700_000_000,
      });
      socket.end(
        `HTTP/1.1 200 OK\r\ncontent-type: application/x-amz-json-1.0\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return { url: `http://127.0.0.1:${address.port}`, requests: () => requests, server };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe("the local stack's Step Functions clients", () => {
  it('start a run again after a reset connection, as the functions do on AWS', async () => {
    const endpoint = await resettingEndpoint(1);
    servers.push(endpoint.server);
    const { executions } = localSfnClients(endpoint.url);

    const started = await executions.send(
      new StartExecutionCommand({ stateMachineArn: 'arn:aws:states:local:0:stateMachine:m', name: 'run_1' }),
    );

    expect(started.executionArn).toBe('arn:aws:states:local:0:execution:m:run_1');
    expect(endpoint.requests()).toBe(2);
  });

  it('answer a task token once: a reset connection is the caller’s to handle', async () => {
    const endpoint = await resettingEndpoint(1);
    servers.push(endpoint.server);
    const { answers } = localSfnClients(endpoint.url);

    const sent = answers.send(new SendTaskSuccessCommand({ taskToken: 't', output: '{}' }));

    await expect(sent).rejects.toThrow(/ECONNRESET|socket hang up/);
    expect(endpoint.requests()).toBe(1);
  });
});
