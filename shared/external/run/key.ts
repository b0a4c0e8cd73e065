/**
 * The admission key and payload of an external run, decided from the run alone so every retry of Start
 * (a crash after the engine accepted, a Lambda retry) sends the same key with the same payload, which the
 * engine answers as the existing execution (`deduplicated`). Pure.
 */
import type { JsonValue } from '../contract.ts';
import type { ExternalDefinition } from '../definition.ts';

/** `run_…` ids carry `_`, which keys (`^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$`) do not allow. */
export const executionKeyFor = (runId: string): string => `wf-${runId.replace(/_/g, '-')}`;

/**
 * The largest payload an external run sends, as UTF-8 JSON. It is stored on the run item (`external.payload`) and,
 * for a graph step, on the step and the child run's input as well, beside the result text (up to 64 KiB) and the
 * run's own input: this cap keeps those items well under DynamoDB's 400 KB item limit
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html). A graph step's rendered
 * payload past it fails the step (graph-run/external-start.ts); a run's start past it is refused (runs/start-run.ts).
 */
export const MAX_EXTERNAL_PAYLOAD_BYTES = 64 * 1024;

/** The payload sent to the engine: the workflow's `payload` with the run input under `input`. */
export function externalPayloadFor(
  definition: Pick<ExternalDefinition, 'payload'>,
  input: unknown,
): { [key: string]: JsonValue } {
  // Both came in as JSON (a workflow file, a request body): JSON values by construction.
  return { ...(definition.payload as { [key: string]: JsonValue }), input: (input ?? null) as JsonValue };
}

/**
 * The payload of a run: a graph step's child run (`parent`) sends its input as is, the node's `payload` rendered
 * from the graph's run data when the step started; any other run the workflow's payload with its input.
 */
export function runPayloadFor(
  definition: Pick<ExternalDefinition, 'payload'>,
  run: { input?: unknown; parent?: unknown },
): { [key: string]: JsonValue } {
  if (run.parent !== undefined) return (run.input ?? {}) as { [key: string]: JsonValue };
  return externalPayloadFor(definition, run.input);
}
