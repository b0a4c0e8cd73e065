/**
 * A redirect never turns a request that was classified (internal, so not gated) or approved for one host
 * into a request to another: http_request's POST, PUT, PATCH and DELETE stay on their origin, or among the
 * operator's internal hosts for an internal call. fetch_url's reads still follow redirects anywhere the
 * guard allows. Real sockets on loopback; host names come from a scripted resolver.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fetchUrlAction } from '../../shared/actions/http/fetch-url.ts';
import { httpRequestAction } from '../../shared/actions/http/http-request.ts';
import { scriptedResolver, startServer, type TestServer, useDialGuard } from '../egress/helpers.ts';
import { actionContext, definitionWith, runParsed, secretsFile } from './support.ts';

useDialGuard();
const definition = definitionWith({});
const publish = { internalHosts: ['hooks.corp', 'audit.corp'] };
const action = httpRequestAction(definition, { publish });
const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * A server that answers every request with `status` toward `target` (a host name that leads to the
 * receiving server), reachable as hooks.corp (internal) and as partner.example (outside).
 */
async function setup(status: number, target: 'anywhere.example' | 'audit.corp') {
  const receiver = await startServer((_req, res) => res.end(`${target} got it`));
  const redirecting = await startServer((_req, res) => {
    res.writeHead(status, { location: `http://${target}:${receiver.port}/collect` });
    res.end();
  });
  servers.push(receiver, redirecting);
  const ctx = actionContext({
    ports: [receiver.port, redirecting.port],
    secrets: secretsFile({}),
    policy: {
      resolve: scriptedResolver(
        Object.fromEntries(
          ['hooks.corp', 'partner.example', 'audit.corp', 'anywhere.example'].map((h) => [h, ['127.0.0.1']]),
        ),
      ),
    },
  });
  return { receiver, redirecting, ctx };
}

describe('http_request redirects', () => {
  it.each([307, 308, 303])(
    'an internal POST (not gated) answered %i toward an outside host is not followed',
    async (status) => {
      // Prepare
      const { receiver, redirecting, ctx } = await setup(status, 'anywhere.example');
      const input = action.input.parse({
        method: 'POST',
        url: `http://hooks.corp:${redirecting.port}/x`,
        body: { report: 'confidential' },
      });
      expect(action.publishesExternally?.(input)).toBe(false);

      // Act
      const outcome = await action.run(input, ctx);

      // Assess: the POST reached hooks.corp (it answered), so its effect is unknown, never "nothing was
      // sent"; the refusal names the Location's host, and nothing reached it.
      expect(outcome).toEqual({
        content: expect.stringMatching(
          /^Outcome unknown: the POST request was sent to its target and answered with a redirect that was not followed: redirect_off_origin.*host anywhere\.example.*It may have taken effect/,
        ),
        isError: true,
        outcomeUnknown: true,
      });
      expect(redirecting.requests).toHaveLength(1);
      expect(receiver.sockets()).toBe(0);
    },
  );

  it('an internal POST redirected to another internal host is followed, body and all', async () => {
    const { receiver, redirecting, ctx } = await setup(307, 'audit.corp');

    const outcome = await runParsed(
      action,
      { method: 'POST', url: `http://hooks.corp:${redirecting.port}/x`, body: 'report' },
      ctx,
    );

    expect(outcome).toMatchObject({ isError: false, content: expect.stringMatching(/audit.corp got it$/) });
    expect(receiver.requests).toEqual([expect.objectContaining({ method: 'POST', body: 'report' })]);
  });

  it.each([308, 302, 303])(
    'an outside PUT (the approved request) answered %i toward another host is not followed',
    async (status) => {
      // The approved call names partner.example; its answer points at audit.corp, which nobody approved.
      const { receiver, redirecting, ctx } = await setup(status, 'audit.corp');
      const input = action.input.parse({
        method: 'PUT',
        url: `http://partner.example:${redirecting.port}/x`,
        body: 'approved text',
      });
      expect(action.publishesExternally?.(input)).toBe(true);

      const outcome = await action.run(input, ctx);

      expect(outcome).toMatchObject({
        isError: true,
        outcomeUnknown: true,
        content: expect.stringMatching(/^Outcome unknown: the PUT request was sent.*host audit\.corp/),
      });
      expect(redirecting.requests).toHaveLength(1);
      expect(receiver.sockets()).toBe(0);
    },
  );

  it('a POST its origin keeps redirecting to itself was sent: too_many_redirects is outcome unknown', async () => {
    const looping = await startServer((_req, res) => {
      res.writeHead(307, { location: '/again' });
      res.end();
    });
    servers.push(looping);
    const ctx = actionContext({
      ports: [looping.port],
      secrets: secretsFile({}),
      policy: { maxRedirects: 2, resolve: scriptedResolver({ 'hooks.corp': ['127.0.0.1'] }) },
    });

    const outcome = await runParsed(
      action,
      { method: 'POST', url: `http://hooks.corp:${looping.port}/x`, body: 'order' },
      ctx,
    );

    expect(outcome).toEqual({
      content: expect.stringMatching(
        /^Outcome unknown: the POST request was sent to its target and answered with a redirect that was not followed: too_many_redirects/,
      ),
      isError: true,
      outcomeUnknown: true,
    });
    expect(looping.requests).toHaveLength(3);
  });

  it('fetch_url (a read) still follows a redirect to another host', async () => {
    const { receiver, redirecting, ctx } = await setup(307, 'anywhere.example');

    const outcome = await runParsed(
      fetchUrlAction(definition),
      { url: `http://hooks.corp:${redirecting.port}/page` },
      ctx,
    );

    expect(outcome).toMatchObject({
      isError: false,
      content: expect.stringMatching(/anywhere.example got it$/),
    });
    expect(receiver.requests).toHaveLength(1);
  });
});
