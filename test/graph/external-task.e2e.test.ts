/**
 * A graph's `external_task` on the local stack, with the fixture engine behind the http-runtime adapter: the
 * step is a child run of the external kind with a parent pointer (the same Start / Observe / Finish, ledger
 * rows and audit as a `kind: external` run), and the child's end answers the step's wait.
 * - live: the engine's verified artifact, validated against the node's schema, is the step's output and a
 *   condition routes on it; the engine got the payload rendered from the run's input, once;
 * - a failing engine fails the step with the engine's reason, and the run with it; a result that does not
 *   match the schema fails the step `InvalidOutput`;
 * - shadow: the engine receives nothing, the step succeeds with no output;
 * - cancel: cancelling the graph run cancels the child, which cancels the engine's execution;
 * - owners: another owner's key reads and cancels the child run as it would a missing one (404);
 * - a graph run that fails for good while the child runs (a sibling branch's Map iteration fails uncaught,
 *   MarkGraphFailed): the child is cancelled through the owner's cancel path and the engine asked to stop; the
 *   step is recorded `cancelled` with what was asked of its child.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, ApiError } from '../../shared/cli/client.ts';
import { FixtureEngine } from '../../shared/external/fixture-engine/index.ts';
import { executionKeyFor } from '../../shared/external/run/index.ts';
import type { ServiceStepDeps } from '../../shared/graph-run/service-step.ts';
import { childRunIdFor } from '../../shared/graph-run/wait.ts';
import type { Run } from '../../shared/schemas/run.ts';
import {
  applyWorkflowText,
  createOwnTable,
  type E2eStack,
  eventually,
  getRun,
  removeDir,
  runEnded,
  startE2eStack,
  tempDataDir,
} from '../e2e/support.ts';
import { withStoreOverrides } from '../support/store-overrides.ts';
import { stepsOf } from './support.ts';

const KEY_A = 'wf_test_key_team_a_external_task_0123';
const KEY_B = 'wf_test_key_team_b_external_task_0123';

/** Live: route on the engine's result. Other modes pass no output on, so nothing may route on it. */
const ROUTES = `  - { from: build, to: green, when: 'steps.build.output.failed = 0' }
  - { from: build, to: red, when: 'steps.build.output.failed > 0' }
`;

/** Two branches: the engine's build, and a service step that breaks once the build is admitted. */
const crashingGraphYaml = (name: string, engineUrl: string) => `kind: graph
name: ${name}
input: { type: object, properties: { branch: { type: string } }, required: [branch] }
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1 }
connectors:
  announce:
    kind: http
    description: Never reached (the step breaks first).
    method: POST
    url: ${engineUrl}/announce
    input: { type: object, properties: { branch: { type: string } } }
nodes:
  - { id: start, type: start }
  - id: build
    type: external_task
    engine: http-runtime
    mode: live
    payload: { branch: '{{ input.branch }}' }
    timeoutSeconds: 600
  - id: announce
    type: service_task
    action: announce
    args: { branch: '{{ input.branch }}' }
  - { id: done, type: end }
edges:
  - { from: start, to: build }
  - { from: start, to: announce }
  - { from: build, to: done }
  - { from: announce, to: done }
`;

/**
 * The service step of the run in `crash.runId` waits until its sibling's child was admitted by the engine, then
 * fails for good (a plain error: no Retry or Catch of the Map iteration takes it, so the Map fails).
 */
function breakAfterAdmission(crash: { runId?: string | undefined }) {
  return (deps: ServiceStepDeps): ServiceStepDeps => ({
    ...deps,
    store: withStoreOverrides(deps.store, {
      loadGraphRun: async (runId, options) => {
        if (runId === crash.runId) {
          const childRunId = childRunIdFor(runId, 'build', 1);
          for (let polls = 0; polls < 400; polls++) {
            if ((await deps.store.getRun(childRunId))?.external?.incarnation) break;
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
          throw new Error('the announce step broke');
        }
        return deps.store.loadGraphRun(runId, options);
      },
    }),
  });
}

const graphYaml = (name: string, mode: string) => `kind: graph
name: ${name}
input: { type: object, properties: { branch: { type: string } }, required: [branch] }
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1 }
nodes:
  - { id: start, type: start }
  - id: build
    type: external_task
    engine: http-runtime
    mode: ${mode}
    payload: { branch: '{{ input.branch }}', target: nightly }
    resultArtifact: result.json
    output:
      type: object
      properties: { tests: { type: integer }, failed: { type: integer } }
      required: [tests, failed]
    timeoutSeconds: 600
  - { id: green, type: end }
${mode === 'live' ? '  - { id: red, type: end }\n' : ''}edges:
  - { from: start, to: build }
${mode === 'live' ? ROUTES : '  - { from: build, to: green }\n'}`;

/** The HTTP status of a request (the client throws on non-2xx). */
async function statusOf(client: ApiClient, method: 'GET' | 'POST', path: string): Promise<number> {
  try {
    return (await client.request(method, path, method === 'POST' ? { body: '{}' } : {})).status;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
}

describe('external_task steps on the local stack', () => {
  let e2e: E2eStack;
  let engine: FixtureEngine;
  let dataDir: string;
  let other: ApiClient;
  const workflows: Record<string, string> = {};
  const crash: { runId?: string | undefined } = {};

  beforeAll(async () => {
    engine = await FixtureEngine.start();
    dataDir = await tempDataDir();
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(
      join(dataDir, 'api-keys.json'),
      JSON.stringify({ keys: { [KEY_A]: { owner: 'team-a' }, [KEY_B]: { owner: 'team-b' } } }),
    );
    const started = await startE2eStack(await createOwnTable(), {
      dataDir,
      allowLoopbackPorts: [engine.port],
      externalEngines: { 'http-runtime': { enabled: true, settings: { endpoint: engine.url } } },
      externalObserveWaitMs: 20,
      wrapServiceDeps: breakAfterAdmission(crash),
    });
    e2e = { ...started, client: new ApiClient(started.stack.url, { kind: 'api-key', apiKey: KEY_A }) };
    other = new ApiClient(started.stack.url, { kind: 'api-key', apiKey: KEY_B });
    for (const mode of ['live', 'shadow'])
      workflows[mode] = await applyWorkflowText(e2e, `build-${mode}`, graphYaml(`build-${mode}`, mode));
    workflows.crashing = await applyWorkflowText(
      e2e,
      'build-crashing',
      crashingGraphYaml('build-crashing', engine.url),
    );
  });
  afterAll(async () => {
    await e2e?.stack.stop();
    await engine?.close();
    await removeDir(dataDir);
  });

  const startGraph = async (mode: string, branch = 'main') =>
    (await e2e.client.post<{ run: Run }>(`/v1/workflows/${workflows[mode]}/runs`, { input: { branch } })).body
      .run.runId;

  /** The graph run once ended, and its build step's child run once its own execution has finished. */
  const ended = async (runId: string) => {
    const run = await runEnded(e2e, runId, 30_000);
    const childRunId = childRunIdFor(runId, 'build', 1);
    const child = await eventually(`child ${childRunId} to end`, async () => {
      const found = await e2e.stack.store.getRun(childRunId);
      return found && ['done', 'failed', 'cancelled'].includes(found.status) ? found : undefined;
    });
    for (const execution of await e2e.stack.externalSfn.listExecutions())
      if (execution.name === childRunId) await e2e.stack.externalSfn.waitForExecution(execution.executionArn);
    return { run, child, steps: await stepsOf(e2e, runId) };
  };

  it("live: the engine's verified result is the step's output, and a condition routes on it", async () => {
    engine.script('*', {
      running: 2,
      summary: 'build green',
      artifacts: [{ path: 'result.json', content: '{"tests":42,"failed":0}' }],
    });
    const dispatched = engine.count('dispatch');
    const runId = await startGraph('live', 'release-7');
    const { run, child, steps } = await ended(runId);

    expect(run.status).toBe('done');
    expect(steps.build).toMatchObject({
      status: 'succeeded',
      attempt: 1,
      output: { tests: 42, failed: 0 },
      input: { payload: { branch: 'release-7', target: 'nightly' } },
      childRunId: child.runId,
    });
    expect(steps.green?.status).toBe('succeeded');
    expect(steps.red?.status).toBe('skipped');
    // A child run of the external kind, bound to the graph's version, pointing at its step.
    expect(child).toMatchObject({
      kind: 'external',
      owner: run.owner,
      workflowId: run.workflowId,
      workflowVersion: run.workflowVersion,
      status: 'done',
      parent: { runId, stepId: 'build', attempt: 1 },
      external: { engine: 'http-runtime', mode: 'live', artifact: { path: 'result.json' } },
    });
    // The engine got the rendered payload as is, once, with the child's key; the start is a settled receipt.
    expect(engine.count('dispatch') - dispatched).toBe(1);
    expect(engine.execution(executionKeyFor(child.runId))?.payload).toEqual({
      branch: 'release-7',
      target: 'nightly',
    });
    expect(await e2e.stack.store.listLedger(child.runId)).toEqual([
      expect.objectContaining({ toolUseId: 'external-start', status: 'completed' }),
    ]);
    const audit = await e2e.client.get<{ verification: { ok: boolean } }>(`/v1/runs/${child.runId}/audit`);
    expect(audit.verification.ok).toBe(true);
  });

  it("a failing engine fails the step with the engine's reason, and the run with it", async () => {
    engine.script('*', { running: 1, outcome: 'failed', summary: 'compile error in main.c' });
    const runId = await startGraph('live');
    const { run, child, steps } = await ended(runId);

    expect(child).toMatchObject({ status: 'failed', parent: { runId, stepId: 'build' } });
    expect(steps.build).toMatchObject({
      status: 'failed',
      error: { name: 'ExternalFailed', message: expect.stringContaining('compile error in main.c') },
    });
    expect(steps.build?.output).toBeUndefined();
    expect(run).toMatchObject({
      status: 'failed',
      error: { message: expect.stringContaining('step build') },
    });
  });

  it("a result that does not match the node's schema fails the step InvalidOutput", async () => {
    engine.script('*', { artifacts: [{ path: 'result.json', content: '{"tests":"many"}' }] });
    const runId = await startGraph('live');
    const { run, child, steps } = await ended(runId);

    expect(child.status).toBe('done');
    expect(steps.build).toMatchObject({
      status: 'failed',
      error: { name: 'InvalidOutput', message: expect.stringContaining('/tests must be integer') },
    });
    expect(run.status).toBe('failed');
  });

  it('shadow: the engine receives nothing, the step succeeds with no output', async () => {
    const requests = engine.count();
    const runId = await startGraph('shadow');
    const { run, child, steps } = await ended(runId);

    expect(engine.count() - requests).toBe(0);
    expect(child).toMatchObject({ status: 'done', stopReason: 'shadow', external: { mode: 'shadow' } });
    expect(child.external?.payload).toEqual({ branch: 'main', target: 'nightly' });
    expect(steps.build).toMatchObject({ status: 'succeeded' });
    expect(steps.build?.output).toBeUndefined();
    expect(run.status).toBe('done');
  });

  it("cancelling the graph run cancels the child run, which cancels the engine's execution", async () => {
    engine.script('*', { running: 100_000 });
    const runId = await startGraph('live');
    const childRunId = childRunIdFor(runId, 'build', 1);
    await eventually('the engine to admit the child', async () => {
      const child = await e2e.stack.store.getRun(childRunId);
      const step = (await stepsOf(e2e, runId)).build;
      return child?.external?.incarnation && step?.status === 'waiting' ? true : undefined;
    });

    await e2e.client.post(`/v1/runs/${runId}/cancel`, {});
    const { run, child, steps } = await ended(runId);

    expect(run.status).toBe('cancelled');
    expect(steps.build?.status).toBe('cancelled');
    expect(child).toMatchObject({
      status: 'cancelled',
      external: { cancel: { requested: true, acknowledged: true, stopped: true } },
    });
    expect(engine.execution(executionKeyFor(childRunId))?.cancel).toBe('done');
    expect((await getRun(e2e, childRunId)).status).toBe('cancelled');
  });

  it('a graph run that fails for good while its external child runs cancels the child and its engine execution', async () => {
    engine.script('*', { running: 100_000, abort: 'stop' });
    const aborts = engine.count('abort');
    const { body } = await e2e.client.post<{ run: Run }>(`/v1/workflows/${workflows.crashing}/runs`, {
      input: { branch: 'main' },
    });
    const runId = body.run.runId;
    crash.runId = runId;
    const { run, child, steps } = await ended(runId);
    crash.runId = undefined;

    expect(run).toMatchObject({
      status: 'failed',
      error: { message: expect.stringContaining('announce step broke') },
    });
    expect(child).toMatchObject({
      status: 'cancelled',
      external: { cancel: { requested: true, acknowledged: true, stopped: true } },
    });
    expect(child.external?.cancelRequested?.by).toBe('system');
    expect(engine.count('abort') - aborts).toBe(1);
    expect(engine.execution(executionKeyFor(child.runId))?.cancel).toBe('done');
    expect(steps.build).toMatchObject({ status: 'cancelled', childRunId: child.runId });
    const audit = await e2e.client.get<{ entries: { type: string; data: Record<string, unknown> }[] }>(
      `/v1/runs/${runId}/audit`,
    );
    const cancelled = audit.entries.find(
      (entry) =>
        entry.type === 'step_changed' && entry.data.stepId === 'build' && entry.data.to === 'cancelled',
    );
    expect(cancelled?.data.child).toMatchObject({
      childRunId: child.runId,
      kind: 'external',
      asked: 'engine_cancel_requested',
      unknown: expect.stringContaining('whether the engine stopped'),
    });
  });

  it('another owner reads and cancels a child run as it would a missing one; its owner can read it', async () => {
    engine.script('*', { artifacts: [{ path: 'result.json', content: '{"tests":1,"failed":0}' }] });
    const runId = await startGraph('live');
    const { child } = await ended(runId);
    const missing = 'run_0123456789abcdef0123456789abcdef';

    expect(await statusOf(e2e.client, 'GET', `/v1/runs/${child.runId}`)).toBe(200);
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/audit'],
      ['GET', '/receipts'],
      ['POST', '/cancel'],
    ] as const) {
      const foreign = await statusOf(other, method, `/v1/runs/${child.runId}${suffix}`);
      expect({ suffix, foreign }).toEqual({
        suffix,
        foreign: await statusOf(other, method, `/v1/runs/${missing}${suffix}`),
      });
      expect(foreign).toBe(404);
    }
  });
});
