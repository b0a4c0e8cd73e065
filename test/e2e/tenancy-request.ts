/**
 * How a probe (tenancy-probe.ts) becomes a request of the tenancy check: its path, query, headers, JSON body and
 * form with A's ids or missing ones (tenancy-ids.ts), sent as its caller to the stack (tenancy-stack.ts).
 */
import { clientKey } from '../jobs/support.ts';
import { foreign, missingOf, ownOf } from './tenancy-ids.ts';
import { type Caller, type IdKind, type OwnValue, type Probe, REF, type Value } from './tenancy-probe.ts';
import { CLIENTS } from './tenancy-probe-builders.ts';
import { consoleCookie, e2e, KEY_B, origin } from './tenancy-stack.ts';

export type Reply = { status: number; headers: Record<string, string>; body: unknown };
/** Headers that differ between any two answers (the time; the length follows an echoed id's). */
const VOLATILE = new Set(['date', 'content-length', 'keep-alive', 'connection']);
export const keyOf: Record<Caller, string | undefined> = {
  ownerB: KEY_B,
  clientB: clientKey(CLIENTS.b),
  siblingA: clientKey(CLIENTS.sibling),
  consoleB: undefined,
  anonymous: undefined,
};

/** One request as `caller` (with `extra` headers); the body is JSON when the answer is, else its text. */
export async function send(
  caller: Caller,
  method: string,
  path: string,
  probe: Probe,
  extra: Record<string, string> = {},
): Promise<Reply> {
  const key = keyOf[caller];
  const headers: Record<string, string> = {
    ...extra,
    // The pages' same-origin rule: a browser on the stack's own origin.
    origin,
    'sec-fetch-site': 'same-origin',
    ...(key ? { authorization: `Bearer ${key}` } : {}),
    ...(caller === 'consoleB' ? { cookie: consoleCookie } : {}),
  };
  let body: string | undefined;
  if (probe.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(probe.json);
  } else if (probe.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    // requestOf has put B's ids in place of each OwnValue.
    const form = Object.entries(probe.form).map(([k, v]) => [k, v === 'B' ? KEY_B : String(v)]);
    body = new URLSearchParams(form).toString();
  }
  const response = await fetch(`${e2e.stack.url}${path}`, {
    method,
    headers,
    redirect: 'manual',
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('json');
  const kept = [...response.headers].filter(([name]) => !VOLATILE.has(name));
  return {
    status: response.status,
    headers: Object.fromEntries(kept),
    body: json && text ? JSON.parse(text) : text,
  };
}

const isRef = (value: unknown): value is { [REF]: IdKind } =>
  value !== null && typeof value === 'object' && REF in value;

/** Each `ref(kind)` in a probe's JSON body, by its path (`credRefs.api.secret`, `nodes[0].id`). */
export function refsIn(json: unknown, path = ''): { path: string; kind: IdKind }[] {
  if (isRef(json)) return [{ path, kind: json[REF] }];
  if (Array.isArray(json)) return json.flatMap((item, i) => refsIn(item, `${path}[${i}]`));
  if (json === null || typeof json !== 'object') return [];
  return Object.entries(json).flatMap(([key, child]) => refsIn(child, path ? `${path}.${key}` : key));
}

/** The JSON body with each `ref(kind)` replaced by `id(kind)`. */
function withIds(json: unknown, id: (kind: IdKind) => string): unknown {
  if (isRef(json)) return id(json[REF]);
  if (Array.isArray(json)) return json.map((item) => withIds(item, id));
  if (json === null || typeof json !== 'object') return json;
  return Object.fromEntries(Object.entries(json).map(([key, child]) => [key, withIds(child, id)]));
}

/**
 * The request of `probe` on `route` with A's ids (`ids = 'foreign'`) or missing ones: its path, the headers the
 * probe names, and the probe to send (B's ids and A's, or missing ones, in its body and form).
 */
export function requestOf(route: string, probe: Probe, ids: 'foreign' | 'missing') {
  const [method = '', pattern = ''] = route.split(' ');
  const id = (kind: IdKind) => (ids === 'foreign' ? foreign[kind] : missingOf(kind, probe.as));
  const ownValue = (v: OwnValue) => ownOf(ids === 'missing' && v.second ? v.second : v.own);
  const value = (v: Value) => (typeof v === 'string' ? id(v) : 'literal' in v ? v.literal : ownValue(v));
  const path = pattern.replace(/:(\w+)/g, (_m, name: string) => {
    const v = probe.params?.[name];
    if (v === undefined) throw new Error(`${route}: the fixture gives no value for :${name}`);
    return encodeURIComponent(value(v));
  });
  const query = new URLSearchParams(
    Object.entries(probe.query ?? {}).map(([name, v]) => [name, value(v)]),
  ).toString();
  const headers = Object.fromEntries(
    Object.entries(probe.headers ?? {}).map(([name, v]) => [name, value(v)]),
  );
  const sent: Probe = {
    ...probe,
    ...(probe.json === undefined ? {} : { json: withIds(probe.json, id) }),
    ...(probe.form === undefined
      ? {}
      : {
          form: Object.fromEntries(
            Object.entries(probe.form).map(([k, v]) => [
              k,
              typeof v === 'string' ? v : isRef(v) ? id(v[REF]) : ownValue(v),
            ]),
          ),
        }),
  };
  return { method, path: query ? `${path}?${query}` : path, headers, probe: sent };
}

/** The kinds of A's ids a probe names: in its path, its query, its headers, its JSON body, its form. */
const kindsIn = (probe: Probe): IdKind[] => [
  ...[
    ...Object.values(probe.params ?? {}),
    ...Object.values(probe.query ?? {}),
    ...Object.values(probe.headers ?? {}),
  ].filter((v): v is IdKind => typeof v === 'string'),
  ...refsIn(probe.json).map((r) => r.kind),
  ...Object.values(probe.form ?? {})
    .filter(isRef)
    .map((v) => v[REF]),
];

export const namesIds = (probe: Probe) => kindsIn(probe).length > 0;

/** `reply` (or B's items) with each of A's ids it echoes swapped for the missing id the other request carried. */
export function echoSwapped<T>(reply: T, probe: Probe): T {
  let text = JSON.stringify(reply);
  for (const kind of kindsIn(probe)) text = text.replaceAll(foreign[kind], missingOf(kind, probe.as));
  return JSON.parse(text);
}
