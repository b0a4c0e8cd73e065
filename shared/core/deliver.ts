/**
 * Deliver: sends a finished run's result to the workflow's destination, once (the run records the
 * delivery, so a retried Deliver changes nothing). `stored` keeps the result on the run; `report` adds a
 * Markdown report; `alert` publishes to SNS; `http` posts through a connector, the egress guard and the gate.
 * An alert or HTTP delivery first reads the live policy (delivery-policy.ts): a workflow disabled or deleted
 * since the run ended, or whose latest version no longer delivers there, gets a refused delivery, recorded, and
 * nothing is sent.
 */

import { sha256Hex } from '../audit/index.ts';
import type { Destination } from '../schemas/destination.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import { asAgentVersion } from '../schemas/workflow-record.ts';
import { capUtf8, cutText } from './byte-caps.ts';
import { isDeliverable } from './degraded.ts';
import { deliveryPolicy } from './delivery-policy.ts';
import { isoAt, RunHandle } from './engine.ts';
import { DYNAMO_ITEM_LIMIT_BYTES, itemBytes } from './item-size.ts';
import type { Clock } from './ports.ts';
import { RunConflictError } from './store-errors.ts';
import type { RunStore } from './store-port.ts';

/** Where results go besides the store; adapters implement what a deployment supports. */
export interface DestinationsPort {
  /**
   * Publishes the run's report for `owner`'s run: the topic must be one this owner may use, the message
   * carries the owner attribute, and only the owner's credential values are redacted from it.
   */
  alert(args: { owner: string; topicArn?: string; subject: string; message: string }): Promise<string>;
  http(args: {
    run: Run;
    definition: WorkflowDefinition;
    /** The latest version's definition, whose gate caps the run's (delivery-policy.ts); undefined: withdrawn. */
    live: WorkflowDefinition | undefined;
    action: string;
    payload: Record<string, unknown>;
  }): Promise<string>;
}

/** A destination refused the delivery for good (denied by its gate, misconfigured): recorded, not retried. */
export class DeliveryRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeliveryRefusedError';
  }
}

export type DeliverDeps = { store: RunStore; clock: Clock; destinations: DestinationsPort };

/**
 * A report lists at most this many actions, then "… and N more actions": a run may make 10,000 calls
 * (maxTurns 200 × maxToolCallsPerTurn 50), and its ledger stays readable in the API.
 */
export const REPORT_MAX_ACTIONS = 200;
/**
 * A report (stored on the run item, or published as an alert) is at most this many UTF-8 bytes, its cut note
 * included: the run item also holds the input (up to 256 KiB) and the result (up to 64 KiB), and DynamoDB caps an
 * item at 400 KB, attribute names included
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html); an SNS message at
 * 256 KiB (shared/notify/sns-message.ts). A stored report is cut further to the room its run item has left.
 */
export const REPORT_MAX_BYTES = 128 * 1024;
/** What a stored report leaves free in its run item for the keys, index attributes and the delivery record. */
export const RUN_ITEM_MARGIN_BYTES = 4 * 1024;
/** A run item with less room than this for its report records a refused delivery instead (nothing useful fits). */
const REPORT_MIN_BYTES = 1024;

/** The note a cut report ends with. */
export const reportCutNote = (maxBytes: number) =>
  `\n\n[truncated: the report was over ${maxBytes} bytes; read the whole run in the API]`;

export function renderReport(
  run: Run,
  definition: { name: string },
  title: string | undefined,
  actions: string[],
  maxBytes = REPORT_MAX_BYTES,
): string {
  const listed = actions.slice(0, REPORT_MAX_ACTIONS).map((line) => `- ${line}`);
  if (actions.length > REPORT_MAX_ACTIONS)
    listed.push(`- … and ${actions.length - REPORT_MAX_ACTIONS} more actions`);
  const report = [
    `# ${title ?? definition.name}`,
    '',
    `- Workflow: ${definition.name} (version ${run.workflowVersion})`,
    `- Run: ${run.runId}, ${run.status} (${run.stopReason ?? 'n/a'})`,
    `- Cost: $${run.costUsd.toFixed(6)} over ${run.modelCalls} model call(s)`,
    '',
    '## Result',
    '',
    run.result?.text || '(no text)',
    '',
    '## Actions taken',
    '',
    ...(listed.length > 0 ? listed : ['- none']),
    '',
    ...(run.degraded
      ? [
          `## Refused (${run.degraded.count}): this run is degraded`,
          '',
          ...run.degraded.refused.map((refusal) => `- ${refusal.tool}: ${refusal.reason}`),
          '',
        ]
      : []),
  ].join('\n');
  return capUtf8(report, maxBytes, reportCutNote(maxBytes));
}

/**
 * The bytes a report may take on `run`'s item: `REPORT_MAX_BYTES`, or less when the rest of the item (its input,
 * result, refusals...) leaves less of DynamoDB's 400 KB.
 */
export function reportRoom(run: Run): number {
  const { delivery: _delivery, ...rest } = run;
  return Math.min(REPORT_MAX_BYTES, DYNAMO_ITEM_LIMIT_BYTES - RUN_ITEM_MARGIN_BYTES - itemBytes(rest));
}

export async function deliverResult(deps: DeliverDeps, runId: string): Promise<Run | undefined> {
  for (let attempt = 1; ; attempt++) {
    const run = await deps.store.getRun(runId);
    if (run === undefined || !isDeliverable(run)) return run;
    if (run.delivery) {
      // Delivered before (a retried Deliver): the chain is final, make sure it is anchored.
      await deps.store.anchorRunHead(run, isoAt(deps.clock));
      return run;
    }
    // The version and the ledger each need only the run: one round trip for both, not one after the other.
    const [version, ledger] = await Promise.all([
      deps.store.getWorkflowVersion(run.owner, run.workflowId, run.workflowVersion),
      deps.store.listLedger(run.runId),
    ]);
    if (!version) throw new Error(`workflow version ${run.workflowId}@${run.workflowVersion} is missing`);
    const destination: Destination = version.definition.destination;
    const actions = ledger.map(
      (row) => `${row.tool}: ${row.outcomeUnknown ? 'outcome unknown (may have taken effect)' : row.status}`,
    );
    let report: string | undefined;
    let detail: string | undefined;
    let refused = false;
    if (destination.type === 'report') {
      const room = reportRoom(run);
      if (room >= REPORT_MIN_BYTES)
        report = renderReport(run, version.definition, destination.title, actions, room);
      else {
        // Nothing useful fits beside the rest of the run item: a refused delivery, recorded, not a doomed write.
        refused = true;
        detail = `refused: the run item has ${Math.max(0, room)} bytes left for its report (at least ${REPORT_MIN_BYTES} needed); read the run in the API`;
      }
    }
    // The live policy, read just before anything leaves the store (fail closed: delivery-policy.ts).
    const policy =
      destination.type === 'alert' || destination.type === 'http'
        ? await deliveryPolicy(deps.store, run, version)
        : undefined;
    try {
      if (policy?.enabled === false) throw new DeliveryRefusedError(policy.reason);
      if (destination.type === 'alert') {
        // As for an HTTP destination, the latest version must still deliver there: one that stores its results
        // or alerts another topic withdraws this run's alert (fail closed: an unreadable version withdraws it).
        const live = policy?.liveDestination;
        if (live?.type !== 'alert' || live.topicArn !== destination.topicArn)
          throw new DeliveryRefusedError(
            "the workflow's latest version no longer alerts this topic; nothing was published",
          );
        detail = await deps.destinations.alert({
          owner: run.owner,
          ...(destination.topicArn ? { topicArn: destination.topicArn } : {}),
          subject: cutText(destination.subject ?? `${version.definition.name}: run ${run.status}`, 100),
          message: renderReport(run, version.definition, destination.subject, actions),
        });
      }
      if (destination.type === 'http') {
        detail = await deps.destinations.http({
          run,
          // An HTTP destination resolves its connector and gate in an agent definition.
          definition: asAgentVersion(version).definition,
          live: policy?.enabled ? policy.live : undefined,
          action: destination.action,
          payload: {
            runId: run.runId,
            workflow: version.definition.name,
            result: run.result?.text ?? '',
            // Only a degraded run adds these, so a connector's input schema written for the three fields above
            // keeps working; one that should hear of degraded runs declares `degraded` and `refused` too.
            ...(run.degraded
              ? {
                  degraded: true,
                  refused: run.degraded.refused.map(({ tool, reason }) => ({ tool, reason })),
                }
              : {}),
          },
        });
      }
    } catch (error) {
      // A refusal is final and is recorded on the run; anything else is retried by the state machine.
      if (!(error instanceof DeliveryRefusedError)) throw error;
      refused = true;
      detail = `refused: ${error.message}`;
    }
    try {
      const handle = new RunHandle(run, deps);
      await handle.commit({
        next: (current) => ({
          ...current,
          delivery: {
            destination: destination.type,
            status: refused ? 'refused' : 'delivered',
            at: isoAt(deps.clock),
            ...(report ? { report } : {}),
            ...(detail ? { detail } : {}),
          },
        }),
        audit: refused
          ? [
              {
                type: 'error',
                actor: 'system',
                data: { name: 'DeliveryRefusedError', message: detail ?? '', destination: destination.type },
              },
            ]
          : [
              {
                type: 'delivered',
                actor: 'system',
                data: { destination: destination.type, outputHash: sha256Hex(run.result?.text ?? '') },
              },
            ],
      });
      // The delivery entry is the run's last: its chain is final, so anchor it into the owner's chain.
      await deps.store.anchorRunHead(handle.run, isoAt(deps.clock));
      return handle.run;
    } catch (error) {
      if (!(error instanceof RunConflictError) || attempt >= 3) throw error;
    }
  }
}
