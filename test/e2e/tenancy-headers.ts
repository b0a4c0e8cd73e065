/**
 * The headers the serving code reads, for the tenancy check (tenancy-routes.test.ts): those read through
 * validateHeader (declared in the OpenAPI document, and so probed), and those read directly, each reviewed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { servingSources } from './tenancy-query.ts';

/** The header names every `validateHeader(c, 'Name', …)` call in shared/ reads, one per call, sorted. */
export function headersReadByRoutes(): string[] {
  const root = new URL('../../shared/', import.meta.url);
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) =>
      [...readFileSync(new URL(file, root), 'utf8').matchAll(/validateHeader\(\s*c,\s*'([^']+)'/g)].map(
        (match) => match[1] ?? '',
      ),
    )
    .sort();
}

/** Headers the served routes read without validateHeader, each with why it carries nothing of an owner's. */
export const READ_DIRECTLY: Record<string, string> = {
  authorization:
    "the caller's own bearer token, the identity every probe already varies (shared/api/auth.ts)",
  'content-type': 'how the body is encoded (shared/api/body.ts, the form posts of the pages)',
  host: "the local stack's host guard against DNS rebinding (shared/local/host-guard.ts)",
  origin: "the pages' same-origin check of a decision or submission (shared/approvals-http/same-origin.ts)",
  'sec-fetch-site': "the pages' same-origin check, as origin",
};

/**
 * The header names read by literal in the serving code (`c.req.header('name')`, `headers.get('name')`),
 * lower-cased, once each, sorted.
 */
export function headersReadDirectly(): string[] {
  const names = new Set<string>();
  for (const { source } of servingSources())
    for (const match of source.matchAll(/(?:req\.header|headers\.get)\(\s*['"]([^'"]+)['"]/g))
      names.add((match[1] ?? '').toLowerCase());
  return [...names].sort();
}
