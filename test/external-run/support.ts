/** External runs on the local stack: a fixture engine, a stack that enables it, workflows and run helpers. */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuditEntry } from '../../shared/audit/index.ts';
import { FixtureEngine } from '../../shared/external/fixture-engine/index.ts';
import type { LocalStackOptions } from '../../shared/local/stack.ts';
import type { LedgerRow } from '../../shared/schemas/ledger.ts';
import type { Run, RunStatus } from '../../shared/schemas/run.ts';
import {
  applyWorkflowText,
  createOwnTable,
  type E2eStack,
  eventually,
  getRun,
  removeDir,
  startE2eStack,
  tempDataDir,
} from '../e2e/support.ts';

export type ExternalStack = E2eStack & { engine: FixtureEngine; close(): Promise<void> };

/** A clock that tests can move forward (the unknown deadline, the run deadline). */
export class ShiftClock {
  offsetMs = 0;
  nowMs(): number {
    return Date.now() + this.offsetMs;
  }
}

/** `apiKeys`: the stack's API keys by owner (the first is the client's); default one key of owner `local`. */
export async function startExternalStack(
  options: Partial<LocalStackOptions> = {},
  apiKeys?: Record<string, { owner: string }>,
): Promise<ExternalStack> {
  const engine = await FixtureEngine.start();
  const dataDir = await tempDataDir();
  if (apiKeys) await writeFile(join(dataDir, 'api-keys.json'), JSON.stringify({ keys: apiKeys }));
  const e2e = await startE2eStack(await createOwnTable(), {
    dataDir,
    allowLoopbackPorts: [engine.port],
    externalEngines: { 'http-runtime': { enabled: true, settings: { endpoint: engine.url } } },
    externalObserveWaitMs: 5,
    ...options,
  });
  return {
    ...e2e,
    engine,
    async close() {
      await e2e.stack.stop();
      await engine.close();
      await removeDir(dataDir);
    },
  };
}

export function externalWorkflow(
  name: string,
  mode: 'off' | 'shadow' | 'report_only' | 'live',
  extra = '',
): string {
  return `kind: external
name: ${name}
description: e2e - a nightly build on the fixture engine.
engine: http-runtime
mode: ${mode}
payload: { branch: main, target: nightly }
resultArtifact: result.json
observe: { initialIntervalSeconds: 1, maxIntervalSeconds: 4, unknownDeadlineSeconds: 60 }
trigger: { type: on_demand }
destination: { type: report, title: Nightly build }
budget: { maxUsdPerRun: 1, runTimeoutSeconds: 3600 }
${extra}`;
}

export async function applyExternal(e2e: E2eStack, name: string, yaml: string): Promise<string> {
  return applyWorkflowText(e2e, name, yaml);
}

export async function startExternalRun(
  e2e: E2eStack,
  workflowId: string,
  input: unknown = { commit: 'abc123' },
) {
  const { body } = await e2e.client.post<{ run: Run }>(
    `/v1/workflows/${workflowId}/runs`,
    { input },
    { headers: { 'Idempotency-Key': randomUUID() } },
  );
  return body.run.runId;
}

const TERMINAL: RunStatus[] = ['done', 'failed', 'denied', 'cancelled'];

/** The run once it ended and its external execution finished (Deliver writes after the run is `done`). */
export async function externalRunEnded(e2e: E2eStack, runId: string, timeoutMs = 20_000): Promise<Run> {
  await eventually(
    `run ${runId} to end`,
    async () => (TERMINAL.includes((await getRun(e2e, runId)).status) ? true : undefined),
    timeoutMs,
  );
  for (const execution of await e2e.stack.externalSfn.listExecutions())
    if (execution.name === runId) await e2e.stack.externalSfn.waitForExecution(execution.executionArn);
  return getRun(e2e, runId);
}

export async function auditOf(e2e: E2eStack, runId: string) {
  return e2e.client.get<{ entries: AuditEntry[]; verification: { ok: boolean } }>(`/v1/runs/${runId}/audit`);
}

/** The `external_execution` audit events of a run, in order. */
export async function externalEvents(e2e: E2eStack, runId: string): Promise<Record<string, unknown>[]> {
  const { entries } = await auditOf(e2e, runId);
  return entries
    .filter((entry) => entry.type === 'external_execution')
    .map((entry) => entry.data as Record<string, unknown>);
}

export const ledgerOf = (e2e: E2eStack, runId: string): Promise<LedgerRow[]> =>
  e2e.stack.store.listLedger(runId);
