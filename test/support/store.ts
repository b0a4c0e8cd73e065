/** Test support: a DynamoStore on the run's DynamoDB Local, and seeded workflows and runs. */
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { connectorActions, createActionCatalog, httpBuiltins } from '../../shared/actions/index.ts';
import { type FirstTurnPlanning, reserveFirstTurn } from '../../shared/core/first-reservation.ts';
import { prepareRun } from '../../shared/core/new-run.ts';
import type { Clock, Ids, WaitingClock } from '../../shared/core/ports.ts';
import { DEFAULT_PRICES } from '../../shared/core/pricing.ts';
import { DEFAULT_MODEL_CONFIG } from '../../shared/model/resolve.ts';
import type { TriggerProvenance } from '../../shared/schemas/run.ts';
import {
  isAgentVersion,
  newWorkflowRecords,
  type WorkflowHead,
  type WorkflowVersion,
} from '../../shared/schemas/workflow-record.ts';
import { DynamoStore } from '../../shared/store/index.ts';
import { loadWorkflowText } from '../../shared/workflow-file/index.ts';
import { validateWorkflowDefinition } from '../../shared/workflow-file/parse.ts';

/** A store on the run's shared table, or on `tableName` (a table of the test file's own, see table.ts). */
export function testStore(tableName = inject('dynamodb').tableName): DynamoStore {
  return new DynamoStore({ endpoint: inject('dynamodb').endpoint, tableName });
}

/** A clock tests move by hand. */
export class FixedClock implements WaitingClock {
  ms: number;
  constructor(iso = '2026-11-30T07:00:00.000Z') {
    this.ms = Date.parse(iso);
  }
  nowMs(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  /**
   * Sleeping does not move this clock (several runs share it, and their deadlines with it): it yields for
   * a small real fraction of `ms`, so waiting runs poll gently while the others progress.
   */
  async sleep(ms: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, Math.max(1, ms / 20))));
  }
}

/** Unique ids per test run (the table is shared by all test files). */
export const randomIds: Ids = { next: (prefix) => `${prefix}_${randomUUID().replaceAll('-', '')}` };

export const uniqueOwner = () => `owner-${randomUUID().slice(0, 8)}`;

/**
 * A run id in the runtime's shape (`GENERATED_RUN_ID`) that no run has: the API answers it 404 after reading the
 * store, where an id of any other shape is refused before any read.
 */
export const missingRunId = () => randomIds.next('run');

export async function seedWorkflow(
  store: DynamoStore,
  definitionInput: unknown,
  opts: { owner?: string; clock?: Clock } = {},
): Promise<{ head: WorkflowHead; version: WorkflowVersion }> {
  const parsed =
    typeof definitionInput === 'string'
      ? loadWorkflowText(definitionInput)
      : validateWorkflowDefinition(definitionInput);
  const definition = 'ok' in parsed ? (parsed.ok ? parsed.definition : failWith(parsed.errors)) : parsed;
  const owner = opts.owner ?? uniqueOwner();
  const now = new Date((opts.clock ?? new FixedClock()).nowMs()).toISOString();
  const { head, version } = newWorkflowRecords({ owner, workflowId: randomIds.next('wf'), definition, now });
  await store.createWorkflow(head, version);
  return { head, version };
}

function failWith(errors: unknown): never {
  throw new Error(`test workflow is invalid: ${JSON.stringify(errors)}`);
}

/**
 * A run created as a run's creator creates it: with turn 0's budget reservation (core/first-reservation.ts)
 * made from the real action catalog and the default prices and roles, unless `firstTurn` is false (a run
 * created before the reservation moved to creation, or by a creator without the planning).
 */
export async function seedRun(
  store: DynamoStore,
  version: WorkflowVersion,
  opts: { clock?: Clock; input?: unknown; trigger?: TriggerProvenance; firstTurn?: boolean } = {},
) {
  const clock = opts.clock ?? new FixedClock();
  const prepared = prepareRun({
    version,
    trigger: opts.trigger ?? { type: 'on_demand', caller: 'test' },
    input: opts.input,
    clock,
    ids: randomIds,
    actor: 'owner:test',
  });
  const agent = opts.firstTurn !== false && isAgentVersion(version) ? version : undefined;
  const { run } = await store.createRun(
    agent ? reserveFirstTurn(prepared, agent.definition, testPlanning(store), clock) : prepared,
  );
  return run;
}

/** What a creator reserves turn 0 from: the real catalog, the default prices and roles. */
export const testPlanning = (store: DynamoStore): FirstTurnPlanning => ({
  config: { prices: DEFAULT_PRICES, roles: DEFAULT_MODEL_CONFIG.roles },
  actions: createActionCatalog({
    notes: store,
    httpBuiltins: httpBuiltins(),
    connectorAction: connectorActions(),
  }),
});

export const minimalWorkflow = (overrides: Record<string, unknown> = {}) => ({
  name: 'test-flow',
  model: { id: 'claude-sonnet-5-5', maxTokens: 1024 },
  prompt: { system: 'You are a test.' },
  allowedActions: ['notes_put', 'notes_append', 'current_time'],
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1, maxTurns: 10 },
  ...overrides,
});
