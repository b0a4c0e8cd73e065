/**
 * DNS-rebinding guard for the local stack: a page on `evil.example` whose name resolves to 127.0.0.1 can reach
 * the stack's port, but its requests carry `Host: evil.example[:port]`. Only the configured host names (and the
 * loopback literals the stack listens on) are answered; anything else gets 421 Misdirected Request and nothing
 * runs. See https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/421 and the DNS-rebinding notes of
 * https://github.com/modelcontextprotocol/typescript-sdk (the same defence MCP servers use on localhost).
 */
import { createMiddleware } from 'hono/factory';

/** The loopback names a browser or CLI on this machine uses to reach the stack. */
export const LOOPBACK_HOST_NAMES = ['127.0.0.1', 'localhost', '[::1]'] as const;

/** `host[:port]` lowercased, with the default HTTP port dropped; undefined when the header is unusable. */
export function normalizeHost(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(value);
  if (!match) return undefined;
  const [, name, port] = match;
  return port === undefined || port === '80' ? name : `${name}:${port}`;
}

/**
 * The `Host` values the stack answers to: each allowed name with the stack's port (and bare, for port 80).
 * `extraHostNames` are host names an operator configured (a LAN name, a reverse proxy's), never wildcards.
 */
export function allowedHosts(port: number, extraHostNames: readonly string[] = []): ReadonlySet<string> {
  const hosts = new Set<string>();
  for (const name of [...LOOPBACK_HOST_NAMES, ...extraHostNames]) {
    const normalized = normalizeHost(name);
    if (normalized === undefined || normalized.includes(':') !== normalized.startsWith('[')) {
      throw new Error(`allowed host name '${name}' is invalid: give a bare host name without a port`);
    }
    hosts.add(`${normalized}:${port}`);
    if (port === 80) hosts.add(normalized);
  }
  return hosts;
}

/** Middleware answering 421 to any request whose `Host` is not one of `hosts`. */
export function hostGuard(hosts: ReadonlySet<string>) {
  return createMiddleware(async (c, next) => {
    const host = normalizeHost(c.req.header('host'));
    if (host === undefined || !hosts.has(host)) {
      return c.text('Misdirected request: this server answers only to its configured host names.\n', 421, {
        'Cache-Control': 'no-store',
      });
    }
    await next();
  });
}
