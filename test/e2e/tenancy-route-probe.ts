/**
 * One probe of a route of the tenancy check (tenancy-routes.test.ts): sent with A's ids and with missing ones,
 * the two answers (and what B's items gain) compared, A's items checked unchanged; a probe naming no id of A's
 * must show none.
 */
import { expect } from 'vitest';
import {
  addedFor,
  freshAsB,
  itemsOf,
  itemsOfA,
  openedForm,
  settled,
  withoutProgress,
} from './tenancy-compare.ts';
import { leakable } from './tenancy-ids.ts';
import { type Probe, REF } from './tenancy-probe.ts';
import { echoSwapped, namesIds, type Reply, refsIn, requestOf, send } from './tenancy-request.ts';

/** The field paths a 400 answer names (`error.fields[].path`). */
const fieldsOf = (reply: Reply): string[] =>
  ((reply.body as { error?: { fields?: { path: string }[] } }).error?.fields ?? []).map((f) => f.path);

/** The answers `probe` gets, and whether A's items stayed the same around it. */
export async function probeRoute(route: string, probe: Probe) {
  const before = await itemsOfA();
  if (namesIds(probe)) {
    const request = requestOf(route, probe, 'foreign');
    const b0 = await itemsOf('team-b');
    const foreignReply = await send(probe.as, request.method, request.path, request.probe, request.headers);
    if (probe.settles) await settled();
    const b1 = await itemsOf('team-b');
    const missingRequest = requestOf(route, probe, 'missing');
    const missingReply = await send(
      probe.as,
      missingRequest.method,
      missingRequest.path,
      missingRequest.probe,
      missingRequest.headers,
    );
    if (probe.settles) await settled();
    const b2 = await itemsOf('team-b');
    const inBody = refsIn(probe.json).map(({ path, kind }) => ` ${path}=<${kind} of A's>`);
    const inHeaders = Object.entries(request.headers).map(([name, value]) => ` ${name}: ${value}`);
    const inForm = Object.entries(probe.form ?? {}).flatMap(([name, v]) =>
      typeof v === 'object' && REF in v ? [` ${name}=<${v[REF]} of A's>`] : [],
    );
    const label = `${probe.as} ${request.method} ${request.path}${inHeaders.join('')}${inBody.length ? ` body${inBody.join('')}` : ''}${inForm.length ? ` form${inForm.join('')}` : ''} (missing: ${missingRequest.path})`;
    expect(missingReply.status, label).toBe(probe.status ?? 404);
    if (probe.field) expect(fieldsOf(missingReply), `${label}: the field refused`).toContain(probe.field);
    // What B's own writes generate (ids, times) differs between any two requests; nothing else may.
    const shown = (reply: Reply) => freshAsB(openedForm(withoutProgress(reply, probe.progress)));
    expect(shown(echoSwapped(foreignReply, probe)), label).toEqual(shown(missingReply));
    // Nor in what B's own items record of the two (an audit entry B could read back).
    expect(freshAsB(echoSwapped(addedFor(b0, b1), probe)), `${label}: B's items`).toEqual(
      freshAsB(addedFor(b1, b2)),
    );
  } else {
    const request = requestOf(route, probe, 'missing');
    const reply = await send(probe.as, request.method, request.path, request.probe, request.headers);
    if (probe.settles) await settled();
    const label = `${probe.as} ${request.method} ${request.path}`;
    if (probe.status !== undefined) expect(reply.status, label).toBe(probe.status);
    expect(reply.status, label).toBeLessThan(500);
    const text = JSON.stringify(reply.body);
    expect(
      leakable.filter((id) => text.includes(id)),
      `${label} shows A's ids`,
    ).toEqual([]);
  }
  expect(await itemsOfA(), `${probe.as} on ${route} changed A's items`).toEqual(before);
}
