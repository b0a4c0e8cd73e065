/**
 * A key look-up that got no answer (the engine's status route failed once) is not final: the look-up is a read,
 * so the next cancel (a step's retry, an abandon) asks again and cancels the execution the engine admitted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExternalTransportError } from '../../shared/external/errors.ts';
import type { ExternalAdapter } from '../../shared/external/index.ts';
import { cancelEngineExecution } from '../../shared/external/run/cancel.ts';
import { type ExternalRunDeps, executionKeyFor } from '../../shared/external/run/index.ts';
import { loadExternalRun } from '../../shared/external/run/records.ts';
import {
  applyExternal,
  type ExternalStack,
  externalWorkflow,
  ledgerOf,
  startExternalRun,
  startExternalStack,
} from './support.ts';

/** Start reaches the engine, then holds its answer until released; `find` fails `findFaults` times. */
type Harness = {
  deps?: ExternalRunDeps;
  admitted?: () => void;
  release?: () => void;
  findFaults: number;
};

function heldStart(state: Harness) {
  return (deps: ExternalRunDeps): ExternalRunDeps => {
    const wrapped: ExternalRunDeps = {
      ...deps,
      adapterFor(run, definition) {
        const inner = deps.adapterFor(run, definition);
        const adapter: ExternalAdapter = Object.create(inner);
        adapter.start = async (key, payload) => {
          await inner.start(key, payload);
          await new Promise<void>((resolve) => {
            state.release = resolve;
            state.admitted?.();
          });
          throw new ExternalTransportError(inner.engine, key, 'transport', 'the start timed out', true);
        };
        adapter.find = async (key) => {
          if (state.findFaults > 0) {
            state.findFaults--;
            throw new ExternalTransportError(inner.engine, key, 'engine_error', 'status answered 503', true);
          }
          return inner.find!(key);
        };
        return adapter;
      },
    };
    state.deps = wrapped;
    return wrapped;
  };
}

describe('an unanswered key look-up', () => {
  let h: ExternalStack;
  let workflowId: string;
  const state: Harness = { findFaults: 0 };
  beforeAll(async () => {
    h = await startExternalStack({ retryIntervalMs: 10, wrapExternalDeps: heldStart(state) });
    workflowId = await applyExternal(h, 'lookup-again', externalWorkflow('lookup-again', 'live'));
  });
  afterAll(async () => {
    state.release?.();
    await h?.close();
  });

  it('is asked again by the next cancel, which then cancels the admitted execution', async () => {
    h.engine.clearFaults().script('*', { running: 100_000, abort: 'stop' });
    const admitted = new Promise<void>((resolve) => {
      state.admitted = resolve;
    });
    const runId = await startExternalRun(h, workflowId);
    await admitted;
    const key = executionKeyFor(runId);
    expect(h.engine.execution(key)).toBeDefined();
    const deps = state.deps!;
    state.findFaults = 1;

    const first = await cancelEngineExecution(deps, (await loadExternalRun(deps, runId))!);
    expect(first.facts).toMatchObject({ byKey: 'unanswered', requested: false });

    const second = await cancelEngineExecution(deps, (await loadExternalRun(deps, runId))!);
    expect(second.facts).toMatchObject({ byKey: 'found', requested: true, stopped: true });
    expect(h.engine.execution(key)?.cancel).toBe('done');
    const cancelRow = (await ledgerOf(h, runId)).find((row) => row.toolUseId === 'external-cancel');
    expect(cancelRow?.status).toBe('completed');
  });
});
