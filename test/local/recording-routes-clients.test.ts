/**
 * `GET /local/runs/{id}/recording` is an owner route: a delegated-jobs client's key gets 403 before any read
 * (before the fix it read its owner's recorded conversations), and a foreign run answers like a missing one.
 */
import { describe, expect, it } from 'vitest';
import { apiKeyAuthenticator } from '../../shared/api/auth.ts';
import { recordingRoutes } from '../../shared/local/recording-routes.ts';
import type { RecordingProxy } from '../../shared/model/recording-proxy.ts';
import type { DynamoStore } from '../../shared/store/index.ts';

const OWNER_KEY = 'wfl_owner_key_0123456789abcdef';
const CLIENT_KEY = 'wfl_client_key_0123456789abcdef';
const OTHER_KEY = 'wfl_other_key_0123456789abcdef';

function routesUnderTest() {
  const reads: string[] = [];
  const store = {
    getRun: async (runId: string) => {
      reads.push(runId);
      return runId === 'run_alice000001' ? { runId, owner: 'alice', workflowName: 'triage' } : undefined;
    },
  } as unknown as DynamoStore;
  const recorder = { fixtureOf: () => ({ turns: [] }) } as unknown as RecordingProxy;
  const authenticator = apiKeyAuthenticator(
    JSON.stringify({
      keys: {
        [OWNER_KEY]: { owner: 'alice' },
        [CLIENT_KEY]: { owner: 'alice', client: 'report-bot' },
        [OTHER_KEY]: { owner: 'bob' },
      },
    }),
  );
  return { app: recordingRoutes({ store, authenticator, recorder }), reads };
}

const get = (app: ReturnType<typeof routesUnderTest>['app'], runId: string, key: string) =>
  app.request(`/local/runs/${runId}/recording`, { headers: { authorization: `Bearer ${key}` } });

describe('recording routes: owners only', () => {
  it("refuses a delegated-jobs client's key with 403, reading nothing", async () => {
    const { app, reads } = routesUnderTest();
    const response = await get(app, 'run_alice000001', CLIENT_KEY);
    expect(response.status).toBe(403);
    expect(reads).toEqual([]);
  });

  it("serves the owner's recording", async () => {
    const { app } = routesUnderTest();
    expect((await get(app, 'run_alice000001', OWNER_KEY)).status).toBe(200);
  });

  it('answers a foreign run exactly as a missing one', async () => {
    const { app } = routesUnderTest();
    const foreign = await get(app, 'run_alice000001', OTHER_KEY);
    const missing = await get(app, 'run_missing00001', OTHER_KEY);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual(await missing.json());
  });
});
