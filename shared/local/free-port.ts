/**
 * A loopback port that was free a moment ago, for a child process that binds its own port (DynamoDB Local).
 * Free when picked, not necessarily when bound: callers that can bind themselves should listen on port 0 instead.
 */
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
