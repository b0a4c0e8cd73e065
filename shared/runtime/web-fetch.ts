/**
 * Node's `fetch`, `Request`, `Response` and `Headers` come from its internal undici, which Node loads on first
 * use (~45 ms of CPU measured on the development machine under load). A handler whose every invocation uses
 * them (Turn's model client; the Hono apps' and the approval pages' requests and responses) calls this once
 * at module scope, so that load belongs to the cold start's init, like the rest of what every invocation
 * needs, and not to the first invocation (docs/deploy.md, "Function bundles"). Handlers that use them only on
 * some invocations (Deliver's HTTP destinations, External's engines, GraphService's calls that the gate
 * allows) load them when they do.
 */
export function loadWebFetch(): void {
  // Reading the global is what makes Node load undici.
  if (typeof globalThis.Response !== 'function') {
    throw new Error('this Node.js has no fetch API (Response); the runtime needs Node.js 22 or later');
  }
}
