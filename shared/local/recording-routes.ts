/**
 * `GET /local/runs/{id}/recording`: the conversation the recording proxy kept for this run (keyed by the run
 * id, never by the workflow's name, which another owner may use too), as a scripted-model fixture
 * (`wf run start --record DIR` writes it). Owner-fenced like the API: a foreign run and a missing one answer
 * the same 404.
 */
import { Hono } from 'hono';
import type { Authenticator } from '../api/deps.ts';
import type { RecordingProxy } from '../model/recording-proxy.ts';
import type { DynamoStore } from '../store/index.ts';

const notFound = (what: string) => ({ error: { code: 'not_found', message: `${what} not found` } });

export function recordingRoutes(deps: {
  store: DynamoStore;
  authenticator: Authenticator;
  recorder: RecordingProxy | undefined;
}) {
  const app = new Hono();
  app.get('/local/runs/:id/recording', async (c) => {
    const identity = await deps.authenticator.authenticate(c.req.raw, c.env);
    if (!identity) return c.json({ error: { code: 'unauthorized', message: 'an API key is needed' } }, 401);
    // The owner's conversations: a delegated-jobs client's key is refused, as on every owner route.
    if (identity.client !== undefined)
      return c.json(
        { error: { code: 'forbidden', message: 'a delegated-jobs client may only use /v1/jobs and /mcp' } },
        403,
      );
    const run = await deps.store.getRun(c.req.param('id'));
    if (!run || run.owner !== identity.owner) return c.json(notFound('run'), 404);
    if (!deps.recorder)
      return c.json(
        {
          error: {
            code: 'not_recording',
            message: 'this stack is not recording: start it with ANTHROPIC_API_KEY set (wf local up)',
          },
        },
        409,
      );
    const fixture = deps.recorder.fixtureOfRun(run.runId);
    if (!fixture) return c.json(notFound(`a recording of ${run.workflowName}`), 404);
    return c.json({ fixture });
  });
  return app;
}
