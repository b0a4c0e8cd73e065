/** The worked example's "newsfeed list": a local server with a few RSS feeds. */
import { createServer, type Server } from 'node:http';

export const FEEDS: Record<string, { title: string; items: { title: string; summary: string }[] }> = {
  engineering: {
    title: 'Engineering',
    items: [
      {
        title: 'Build times down 40% after cache rework',
        summary: 'CI now reuses dependency layers across branches.',
      },
      {
        title: 'Postgres 17 upgrade scheduled for Thursday',
        summary: 'Expect a 10-minute read-only window at 06:00 UTC.',
      },
    ],
  },
  product: {
    title: 'Product',
    items: [
      {
        title: 'Approval links ship to all teams',
        summary: 'Gated actions now pause for a human, with a signed link.',
      },
      { title: 'New onboarding checklist', summary: 'First-run setup takes five steps instead of twelve.' },
    ],
  },
};

const escapeXml = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

function rss(name: string): string | undefined {
  const feed = FEEDS[name];
  if (!feed) return undefined;
  const items = feed.items
    .map(
      (item) =>
        `    <item><title>${escapeXml(item.title)}</title><description>${escapeXml(item.summary)}</description></item>`,
    )
    .join('\n');
  return `<?xml version="1.0"?>\n<rss version="2.0">\n  <channel>\n    <title>${feed.title}</title>\n${items}\n  </channel>\n</rss>\n`;
}

export type FeedServer = { url: string; port: number; server: Server; close(): Promise<void> };

export async function startFeedServer(port = 0): Promise<FeedServer> {
  const server = createServer((request, response) => {
    const name = /^\/feeds\/([a-z]+)\.xml$/.exec(request.url ?? '')?.[1];
    const body = name ? rss(name) : undefined;
    if (!body) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('no such feed');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    server,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
