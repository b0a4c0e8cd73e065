import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { apiHarness, clientFor } from './helpers.ts';

const h = apiHarness();

describe('Routing', () => {
  it.each(['/v1/nothing', '/v1/workflows/wf_abc1234567/unknown', '/elsewhere'])(
    'answers %s with a 404 JSON body',
    async (path) => {
      const reply = await h.alice.get(path);
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ error: { code: 'not_found', message: 'route not found' } });
    },
  );

  it.each([
    ['PUT', '/v1/workflows', 'POST, GET, HEAD'],
    ['PATCH', '/v1/workflows/wf_abc1234567', 'GET, HEAD, DELETE'],
    ['GET', `/v1/runs/run_${'0'.repeat(32)}/cancel`, 'POST'],
    ['DELETE', '/v1/runs', 'GET, HEAD'],
    ['GET', '/local/events', 'POST'],
  ])('answers %s %s with 405 and Allow: %s', async (method, path, allow) => {
    const reply = await h.alice.call(method, path);
    expect(reply.status).toBe(405);
    expect(reply.body.error.code).toBe('method_not_allowed');
    expect(reply.headers.get('allow')?.split(', ').sort()).toEqual(allow.split(', ').sort());
  });

  it('has no /local routes unless the local stack asks for them', async () => {
    const remote = apiHarness({ local: false });
    const reply = await remote.alice.post('/local/events', { source: 'x', 'detail-type': 'y', detail: {} });
    expect(reply.status).toBe(404);
  });

  it('asks for authentication before revealing whether a /v1 route exists', async () => {
    expect((await h.anonymous.get('/v1/nothing')).status).toBe(401);
  });
});

describe('Mounted into another Hono app (as the local stack does)', () => {
  const parent = new Hono();
  parent.get('/local/inbox', (c) => c.text('inbox'));
  parent.route('/', h.app);
  parent.post('/local/other', (c) => c.text('other'));
  const mounted = clientFor(parent as unknown as typeof h.app, h.keys.alice);

  it('keeps its JSON errors, 404s and 405s', async () => {
    expect((await mounted.get('/v1/nothing')).body.error.code).toBe('not_found');
    expect((await mounted.call('PUT', '/v1/workflows')).status).toBe(405);
    expect((await mounted.get('/v1/runs?status=bogus')).body.error.code).toBe('validation_failed');
    expect((await mounted.post('/local/events', { source: 'a', 'detail-type': 'b' })).status).toBe(400);
  });

  it('leaves the parent’s own routes alone: no API key or body limit demanded there', async () => {
    const anonymous = clientFor(parent as unknown as typeof h.app, undefined);
    const inbox = await parent.request('/local/inbox');
    expect(await inbox.text()).toBe('inbox');
    const other = await parent.request('/local/other', { method: 'POST', body: 'x'.repeat(2 * 1024 * 1024) });
    expect(other.status).toBe(200);
    expect((await anonymous.get('/v1/workflows')).status).toBe(401);
  });
});
