/** The worked example's "my site": a local server that records the posts it receives (with auth). */
import { createServer, type Server } from 'node:http';

export type ReceivedPost = { title: string; body: string; idempotencyKey: string | undefined; at: string };

export type SiteServer = {
  url: string;
  port: number;
  posts: ReceivedPost[];
  server: Server;
  close(): Promise<void>;
};

export async function startSiteServer(options: {
  port?: number;
  token: string;
  onPost?: (post: ReceivedPost) => void;
}): Promise<SiteServer> {
  const posts: ReceivedPost[] = [];
  const seenKeys = new Set<string>();
  const server = createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/api/posts') {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    if (request.headers.authorization !== `Bearer ${options.token}`) {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          title?: unknown;
          body?: unknown;
        };
        if (typeof parsed.title !== 'string' || typeof parsed.body !== 'string')
          throw new Error('title and body are required');
        const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
        // A repeated Idempotency-Key is the same post, as a well-behaved API would treat it.
        if (idempotencyKey && seenKeys.has(idempotencyKey)) {
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end('{"status":"duplicate ignored"}');
          return;
        }
        if (idempotencyKey) seenKeys.add(idempotencyKey);
        const post = { title: parsed.title, body: parsed.body, idempotencyKey, at: new Date().toISOString() };
        posts.push(post);
        options.onPost?.(post);
        response
          .writeHead(201, { 'content-type': 'application/json' })
          .end(JSON.stringify({ id: posts.length, url: `/posts/${posts.length}` }));
      } catch (error) {
        response
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: (error as Error).message }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const bound = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    posts,
    server,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
