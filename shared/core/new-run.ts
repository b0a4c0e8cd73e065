/** Builds a new run (status pending), its first user message and its first audit entry. Pure. */
import { auditGenesisHash, canonicalJson, sha256Hex } from '../audit/index.ts';
import { executionKeyFor } from '../external/run/key.ts';
import { ZERO_USAGE } from '../schemas/common.ts';
import type { TranscriptMessage } from '../schemas/message.ts';
import type { Run, TriggerProvenance } from '../schemas/run.ts';
import type { WorkflowVersion } from '../schemas/workflow-record.ts';
import type { FirstReservation } from './first-reservation.ts';
import type { Clock, Ids } from './ports.ts';
import type { AuditInput } from './store-port.ts';
import { triggerContextText } from './transcript.ts';

export type PreparedRun = {
  run: Run;
  firstMessage: TranscriptMessage;
  audit: AuditInput[];
  /** Turn 0's budget reservation, written with the run (first-reservation.ts); absent, turn 0 reserves. */
  firstReservation?: FirstReservation;
};

export function prepareRun(args: {
  version: WorkflowVersion;
  trigger: TriggerProvenance;
  input?: unknown;
  clock: Clock;
  ids: Ids;
  actor: string;
}): PreparedRun {
  const { version, trigger, clock } = args;
  const nowMs = clock.nowMs();
  const now = new Date(nowMs).toISOString();
  const runId = args.ids.next('run');
  const run: Run = {
    schemaVersion: 1,
    runId,
    ...(version.definition.kind === 'graph' ? { kind: 'graph' as const } : {}),
    ...(version.definition.kind === 'external'
      ? {
          kind: 'external' as const,
          // The mode is fixed for the run when it is created (docs/external-engines.md, modes).
          external: {
            engine: version.definition.engine,
            mode: version.definition.mode,
            key: executionKeyFor(runId),
            observes: 0,
          },
        }
      : {}),
    owner: version.owner,
    workflowId: version.workflowId,
    workflowName: version.definition.name,
    workflowVersion: version.version,
    status: 'pending',
    turn: 0,
    rev: 0,
    trigger,
    ...(args.input !== undefined ? { input: args.input } : {}),
    usage: { ...ZERO_USAGE },
    costUsd: 0,
    modelCalls: 0,
    messageCount: 1,
    pendingApprovalIds: [],
    audit: { seq: 0, head: auditGenesisHash({ owner: version.owner, runId }) },
    createdAt: now,
    updatedAt: now,
    deadlineAt: new Date(nowMs + version.definition.budget.runTimeoutSeconds * 1000).toISOString(),
  };
  const firstMessage: TranscriptMessage = {
    schemaVersion: 1,
    runId,
    seq: 0,
    turn: 0,
    role: 'user',
    content: [{ type: 'text', text: triggerContextText(trigger, args.input, now) }],
    createdAt: now,
  };
  const audit: AuditInput[] = [
    {
      type: 'run_created',
      actor: args.actor,
      data: {
        workflowId: version.workflowId,
        workflowVersion: version.version,
        trigger,
        inputHash: sha256Hex(canonicalJson(args.input ?? null)),
        ...(version.definition.kind === 'external'
          ? { engine: version.definition.engine, mode: version.definition.mode }
          : {}),
      },
    },
  ];
  return { run, firstMessage, audit };
}
