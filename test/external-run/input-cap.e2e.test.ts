/**
 * An external run stores its payload (the workflow's payload with the run's input) on the run item, beside the
 * input itself and, at the end, up to 64 KiB of result: an input the API accepts for other kinds (256 KiB) would
 * take the item past DynamoDB's 400 KB once the engine had run, or sooner. A start whose payload would pass
 * MAX_EXTERNAL_PAYLOAD_BYTES is refused 400 naming `input`, before anything is written or dispatched; one just
 * under it runs to the end (shared/runs/start-run.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/cli/client.ts';
import { MAX_EXTERNAL_PAYLOAD_BYTES } from '../../shared/external/run/key.ts';
import {
  applyExternal,
  type ExternalStack,
  externalRunEnded,
  externalWorkflow,
  startExternalRun,
  startExternalStack,
} from './support.ts';

describe('the input of an external run, capped by its payload', () => {
  let h: ExternalStack;
  beforeAll(async () => {
    h = await startExternalStack();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('refuses an input past the payload cap with a 400 naming input, and starts nothing', async () => {
    const workflowId = await applyExternal(h, 'nightly-big', externalWorkflow('nightly-big', 'live'));

    const attempt = startExternalRun(h, workflowId, { log: 'x'.repeat(MAX_EXTERNAL_PAYLOAD_BYTES) });

    const error = await attempt.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'validation_failed' });
    expect((error as ApiError).fields).toEqual([
      { path: 'input', message: expect.stringContaining(`at most ${MAX_EXTERNAL_PAYLOAD_BYTES}`) },
    ]);
    const runs = await h.client.get<{ items: unknown[] }>(`/v1/runs?workflowId=${workflowId}`);
    expect(runs.items).toEqual([]);
    expect(h.engine.count('dispatch')).toBe(0);
  });

  it('runs an input just under the cap to the end', async () => {
    h.engine.script('*', {
      running: 1,
      summary: 'build green',
      artifacts: [{ path: 'result.json', content: '{"tests":1,"failed":0}' }],
    });
    const workflowId = await applyExternal(h, 'nightly-near', externalWorkflow('nightly-near', 'live'));

    const runId = await startExternalRun(h, workflowId, {
      log: 'x'.repeat(MAX_EXTERNAL_PAYLOAD_BYTES - 200),
    });
    const run = await externalRunEnded(h, runId);

    expect(run.status).toBe('done');
  });
});
