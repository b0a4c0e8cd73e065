/**
 * Faults logged after a commit become metrics (shared/store/faults.ts, shared/runtime/store-fault-metrics.ts): a
 * cancel whose final head could not be anchored counts `CancelAnchorsDeferred`, a workflow change whose owner heads
 * could not be signed counts `WorkflowSigningFaults`, each once per fault and never for a change that went through.
 * Before, both were only log lines, and no alarm could see them. Stores against DynamoDB Local.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AnchorSigner } from '../../shared/audit/index.ts';
import { cancelRun } from '../../shared/runs/cancel-run.ts';
import { storeFaultMetrics } from '../../shared/runtime/store-fault-metrics.ts';
import { createTelemetry } from '../../shared/runtime/telemetry.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { newWorkflowRecords } from '../../shared/schemas/workflow-record.ts';
import type { StoreFaults } from '../../shared/store/faults.ts';
import { DynamoStore, WorkflowStore } from '../../shared/store/index.ts';
import { validateWorkflowDefinition } from '../../shared/workflow-file/parse.ts';
import { RecordingExecutions } from '../api/helpers.ts';
import {
  FixedClock,
  minimalWorkflow,
  randomIds,
  seedRun,
  seedWorkflow,
  testStore,
  uniqueOwner,
} from '../support/store.ts';
import { captureOutput } from './capture.ts';

const { ctx } = testStore();

/** Faults counted by name. */
function counting() {
  const counts = { workflowSigningFault: 0, cancelAnchorDeferred: 0 };
  const faults: StoreFaults = {
    workflowSigningFault: () => void counts.workflowSigningFault++,
    cancelAnchorDeferred: () => void counts.cancelAnchorDeferred++,
  };
  return { counts, faults };
}

/** The store with its next anchor refused (as a KMS refusal to sign would be). */
function anchorRefusedOnce(inner: DynamoStore): DynamoStore {
  let refused = false;
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'anchorRunHead' && !refused)
        return async () => {
          refused = true;
          throw Object.assign(new Error('signing refused'), { name: 'KMSInvalidStateException' });
        };
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('Store faults as metrics', () => {
  it('counts a cancel whose anchor was deferred, once, and not the repeated cancel that anchors it', async () => {
    // Prepare
    const { counts, faults } = counting();
    const store = new DynamoStore(ctx, { faults });
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const deps = {
      store: anchorRefusedOnce(store),
      executions: new RecordingExecutions(),
      clock: new FixedClock(),
      anchorDeferred: (_run: Run, _error: unknown) => undefined,
    };
    const args = { owner: run.owner, runId: run.runId, actor: `owner:${run.owner}` };

    // Act
    await cancelRun(deps, args);
    const afterFirst = counts.cancelAnchorDeferred;
    await cancelRun(deps, args);

    // Assess
    expect(afterFirst).toBe(1);
    expect(counts).toEqual({ workflowSigningFault: 0, cancelAnchorDeferred: 1 });
    expect(await store.getRunAnchor(run.owner, run.runId)).toBeDefined();
  });

  it('counts a committed workflow change whose owner heads could not be signed', async () => {
    // Prepare
    const { counts, faults } = counting();
    const refusing: AnchorSigner = {
      keyId: 'local:refusing',
      sign: async () => {
        throw Object.assign(new Error('key disabled'), { name: 'DisabledException' });
      },
    };
    const workflows = new WorkflowStore(ctx, { signer: refusing, faults });
    const parsed = validateWorkflowDefinition(minimalWorkflow());
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const created = newWorkflowRecords({
      owner: uniqueOwner(),
      workflowId: randomIds.next('wf'),
      definition: parsed.definition,
      now: '2026-11-30T07:00:00.000Z',
      author: 'alice',
    });
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);

    // Act
    await workflows.createWorkflow(created.head, created.version);

    // Assess: the change is committed, its signing fault logged and counted.
    expect(await workflows.getWorkflowHead(created.head.owner, created.head.workflowId)).toBeDefined();
    expect(counts).toEqual({ workflowSigningFault: 1, cancelAnchorDeferred: 0 });
    expect(logged.mock.calls.map(([line]) => String(line))).toEqual([
      expect.stringContaining('signing its owner heads failed'),
    ]);
  });

  it('emits each as a Count of the functions’ namespace and service (EMF)', () => {
    // Prepare
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'WfFaultTest');
    vi.stubEnv('POWERTOOLS_SERVICE_NAME', 'wf-test');
    const telemetry = createTelemetry();
    const output = captureOutput();

    // Act
    try {
      const faults = storeFaultMetrics(telemetry);
      faults.cancelAnchorDeferred?.();
      faults.workflowSigningFault?.();
      faults.workflowSigningFault?.();
      telemetry.metrics?.publishStoredMetrics();
    } finally {
      output.restore();
    }

    // Assess
    const [blob] = output.emf();
    expect(blob?._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'WfFaultTest',
      Dimensions: [['service']],
      Metrics: expect.arrayContaining([
        { Name: 'CancelAnchorsDeferred', Unit: 'Count' },
        { Name: 'WorkflowSigningFaults', Unit: 'Count' },
      ]),
    });
    // Two faults in one invocation are two values of the metric (CloudWatch sums them).
    expect(blob).toMatchObject({
      service: 'wf-test',
      CancelAnchorsDeferred: 1,
      WorkflowSigningFaults: [1, 1],
    });
  });
});
