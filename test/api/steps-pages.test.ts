/**
 * A graph run's steps larger than a Lambda response (6 MB:
 * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html) are read through
 * GET /v1/runs/{id}/steps a page at a time, each page's Lambda result under 6 MB as the Lambda adapter
 * (hono/aws-lambda) builds it, and the pages put back together are the stored steps (no task token).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readAllSteps, type StepsPageBody } from '../../shared/runs/step-reader.ts';
import type { GraphStep } from '../../shared/schemas/graph-step.ts';
import { keys } from '../../shared/store/keys.ts';
import {
  expectPageQueriesRefused,
  jsonText,
  LAMBDA_RESPONSE_BYTES,
  lambdaGet as lambdaGetOf,
  putItems,
} from '../support/lambda-pages.ts';
import { missingRunId } from '../support/store.ts';
import { apiHarness, definition, ownTableName } from './helpers.ts';

const h = apiHarness({ tableName: await ownTableName() });

async function startRun() {
  const { workflowId } = (await h.alice.post('/v1/workflows', definition())).body.workflow;
  return (await h.alice.post(`/v1/workflows/${workflowId}/runs`, { input: 'hello' })).body.run as {
    runId: string;
  };
}

const stepOf = (runId: string, i: number, size: number): GraphStep => ({
  schemaVersion: 1,
  runId,
  stepId: `s${String(i).padStart(3, '0')}`,
  type: 'service_task',
  status: 'succeeded',
  attempt: 1,
  input: { prompt: jsonText(Math.floor(size / 4)) },
  output: { text: jsonText(size) },
  taskToken: `token-${i}`,
  updatedAt: '2026-12-02T00:00:00.000Z',
});

/** Writes the steps as the store keeps them (keys.ts), 25 a batch. */
async function putSteps(steps: GraphStep[]) {
  const items = steps.map((step) => ({ ...keys.step(step.runId, step.stepId), ...step }));
  await putItems(h.store, items);
}

const shown = (steps: GraphStep[]) => steps.map(({ taskToken: _token, ...step }) => step);

/** The API behind the Lambda adapter, as API Gateway invokes it: the result whose size Lambda limits. */
const lambdaGet = (path: string) => lambdaGetOf(h.app, h.keys.alice, path);

describe('GET /v1/runs/{id}/steps over 6 MB', () => {
  let runId: string;
  let stored: GraphStep[];
  beforeAll(async () => {
    runId = (await startRun()).runId;
    // 100 steps with 64 KiB outputs and 16 KiB inputs: a graph's most nodes, each output at its bound.
    stored = Array.from({ length: 100 }, (_, i) => stepOf(runId, i, 64 * 1024));
    await putSteps(stored);
  }, 120_000);

  it('has steps that would not fit one Lambda response', () => {
    const whole = JSON.stringify(JSON.stringify({ runId, steps: shown(stored) }));
    expect(Buffer.byteLength(whole)).toBeGreaterThan(LAMBDA_RESPONSE_BYTES);
  });

  it('gives every page within a Lambda response, and the pages joined are the stored steps', async () => {
    const sizes: number[] = [];
    // As the CLI and the console read them (step-reader.ts): following nextToken.
    const steps = await readAllSteps(runId, async (path) => {
      const { result, bytes } = await lambdaGet(path);
      expect(result.statusCode).toBe(200);
      sizes.push(bytes);
      return JSON.parse(result.body) as StepsPageBody;
    });
    expect(steps).toEqual(shown(stored));
    expect(sizes.length).toBeGreaterThan(1);
    expect(Math.max(...sizes)).toBeLessThan(LAMBDA_RESPONSE_BYTES);
    console.log(
      `[steps] ${stored.length} steps, ${sizes.length} pages, largest Lambda result ${Math.max(...sizes)} bytes`,
    );
  });
});

describe('GET /v1/runs/{id}/steps paging', () => {
  it('answers small steps whole, without nextToken, as before', async () => {
    const { runId } = await startRun();
    await putSteps([stepOf(runId, 1, 10), stepOf(runId, 2, 10)]);
    const reply = await h.alice.get(`/v1/runs/${runId}/steps`);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['runId', 'steps']);
    expect(reply.body.steps.map((step: GraphStep) => step.stepId)).toEqual(['s001', 's002']);
    expect(JSON.stringify(reply.body)).not.toContain('taskToken');
  });

  it('pages by `limit`, and ends without nextToken', async () => {
    const { runId } = await startRun();
    await putSteps(Array.from({ length: 5 }, (_, i) => stepOf(runId, i, 10)));
    const ids: string[][] = [];
    let token: string | undefined;
    do {
      const query = `limit=2${token ? `&nextToken=${encodeURIComponent(token)}` : ''}`;
      const reply = await h.alice.get(`/v1/runs/${runId}/steps?${query}`);
      expect(reply.status).toBe(200);
      ids.push(reply.body.steps.map((step: GraphStep) => step.stepId));
      token = reply.body.nextToken;
    } while (token);
    expect(ids).toEqual([['s000', 's001'], ['s002', 's003'], ['s004']]);
  });

  it("refuses another run's token, a forged one and a bad limit with 400 naming the field", async () => {
    const [a, b] = [await startRun(), await startRun()];
    await putSteps([stepOf(a.runId, 1, 10), stepOf(a.runId, 2, 10)]);
    const token = (await h.alice.get(`/v1/runs/${a.runId}/steps?limit=1`)).body.nextToken as string;
    expect(token).toEqual(expect.any(String));
    const forged = Buffer.from(JSON.stringify({ pk: `RUN#${a.runId}`, sk: 'STEP#X!' })).toString('base64url');
    await expectPageQueriesRefused(
      (path) => h.alice.get(path),
      [
        [`/v1/runs/${b.runId}/steps?nextToken=${token}`, 'nextToken'],
        [`/v1/runs/${a.runId}/steps?nextToken=${forged}`, 'nextToken'],
        [`/v1/runs/${a.runId}/steps?limit=0`, 'limit'],
      ],
    );
  });

  it("answers another owner's run as missing, token or not", async () => {
    const { runId } = await startRun();
    await putSteps([stepOf(runId, 1, 10), stepOf(runId, 2, 10)]);
    const token = (await h.alice.get(`/v1/runs/${runId}/steps?limit=1`)).body.nextToken as string;
    const missing = await h.bob.get(`/v1/runs/${missingRunId()}/steps`);
    for (const path of [`/v1/runs/${runId}/steps`, `/v1/runs/${runId}/steps?nextToken=${token}`]) {
      const reply = await h.bob.get(path);
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual(missing.body);
    }
  });
});
