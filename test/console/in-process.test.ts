/**
 * The local console's in-process API calls: the signed-in identity rides on the Request object the console
 * made, so the API answers it as that owner; any other request (one from a socket) is judged by the real
 * authenticator only, whatever it carries.
 */
import { describe, expect, it } from 'vitest';
import type { Authenticator } from '../../shared/api/deps.ts';
import { inProcessApi } from '../../shared/console/in-process.ts';

const inner: Authenticator = {
  authenticate: (request) =>
    request.headers.get('authorization') === 'Bearer good-key'
      ? { owner: 'keyed', principal: 'keyed' }
      : undefined,
};

describe('inProcessApi', () => {
  it("answers the console's own request as the signed-in identity", async () => {
    const bridge = inProcessApi(inner);
    const seen: unknown[] = [];
    const api = bridge.connect(async (request) => {
      seen.push(await bridge.authenticator.authenticate(request, {}));
      return Response.json({ ok: true });
    });
    const answer = await api({ owner: 'alice', principal: 'alice@laptop' }, 'GET', '/v1/runs');
    expect(answer).toEqual({ status: 200, body: { ok: true } });
    expect(seen).toEqual([{ owner: 'alice', principal: 'alice@laptop' }]);
  });

  it('judges every other request by the real authenticator alone', async () => {
    const bridge = inProcessApi(inner);
    bridge.connect(async () => new Response(null));
    const forged = new Request('http://127.0.0.1/v1/runs', { headers: { 'x-identity': 'alice' } });
    const keyed = new Request('http://127.0.0.1/v1/runs', { headers: { authorization: 'Bearer good-key' } });
    expect(await bridge.authenticator.authenticate(forged, {})).toBeUndefined();
    expect(await bridge.authenticator.authenticate(keyed, {})).toEqual({
      owner: 'keyed',
      principal: 'keyed',
    });
  });
});
