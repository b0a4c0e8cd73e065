/**
 * Every key the runtime builds stays within DynamoDB's key limits for every input its schemas accept: a partition
 * key value at most 2,048 bytes, a sort key value at most 1,024, counted in UTF-8 bytes, for the table and its
 * indexes alike (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-partition-sort-keys).
 * DynamoDB Local refuses a longer key too, but only a test that sends one would notice: this checks the bounds
 * offline, from the longest value each schema accepts. Every segment is ASCII-only, so its characters are its
 * bytes; a schema that ever allows more (or non-ASCII) fails here first.
 */
import { describe, expect, it } from 'vitest';
import { IdempotencyKeySchema, LocalEventEnvelopeBodySchema } from '../../shared/api/schemas.ts';
import { utf8Length } from '../../shared/core/byte-caps.ts';
import { NodeIdSchema } from '../../shared/graph/definition.ts';
import { stepToolUseId } from '../../shared/graph-run/service-step.ts';
import { grantIndexKeys, jobKeys } from '../../shared/jobs/records.ts';
import { ActionNameSchema, OwnerIdSchema, WorkflowNameSchema } from '../../shared/schemas/common.ts';
import { ClientIdSchema, GrantIdSchema } from '../../shared/schemas/job.ts';
import { GENERATED_RUN_ID } from '../../shared/schemas/run-id.ts';
import { WorkflowIdSchema } from '../../shared/schemas/workflow-record.ts';
import { indexKeys, keys } from '../../shared/store/keys.ts';
import { triggerIndexKey } from '../../shared/store/trigger-index.ts';
import type * as z from '../../shared/zod.ts';

const PARTITION_KEY_MAX_BYTES = 2048;
const SORT_KEY_MAX_BYTES = 1024;

/** The longest value `schema` accepts built from `unit`, checked to be the longest: one more is refused. */
function longest(schema: z.ZodMiniType, prefix: string, unit: string, max: number): string {
  const value = `${prefix}${unit.repeat(max - prefix.length)}`;
  expect(schema.safeParse(value).success, value.slice(0, 20)).toBe(true);
  expect(schema.safeParse(`${value}${unit}`).success, `${value.slice(0, 20)}… + 1`).toBe(false);
  // Characters are bytes: a multi-byte character is refused.
  expect(schema.safeParse(`${prefix}${'€'.repeat(2)}`).success).toBe(false);
  return value;
}

const owner = longest(OwnerIdSchema, '', 'a', 128);
const clientId = longest(ClientIdSchema, '', 'a', 128);
const workflowId = longest(WorkflowIdSchema, 'wf_', 'a', 43);
const grantId = longest(GrantIdSchema, 'grant_', 'a', 46);
const name = longest(WorkflowNameSchema, '', 'a', 63);
const stepId = longest(NodeIdSchema, '', 'a', 40);
// A note name: /^[a-z0-9_-]{1,64}$/ (shared/actions/builtins/notes.ts), as long as an action name.
const noteName = longest(ActionNameSchema, '', 'a', 64);
const apiKey = longest(IdempotencyKeySchema, '', 'a', 255);
const eventId = longest(LocalEventEnvelopeBodySchema.shape.id._zod.def.innerType, '', 'a', 128);
const runId = `run_${'f'.repeat(32)}`;
const createdAt = '2026-12-04T10:00:00.000+14:00';

describe('key bounds', () => {
  it('a generated run id has one length', () => {
    expect(GENERATED_RUN_ID.test(runId)).toBe(true);
  });

  it.each(
    Object.entries({
      workflowHead: keys.workflowHead(owner, workflowId),
      workflowVersion: keys.workflowVersion(owner, workflowId, 9_999_999_999),
      workflowName: keys.workflowName(owner, name),
      run: keys.run(runId),
      messagePart: keys.messagePart(runId, 999_999, 9999),
      // A graph step's call; an agent's is the model's tool_use id (not the runtime's to bound: see the report).
      ledger: keys.ledger(runId, stepToolUseId(stepId, 9999)),
      note: keys.note(runId, noteName),
      step: keys.step(runId, stepId),
      humanTask: keys.humanTask(runId, stepId, 9999),
      approval: keys.approval(`apr_${'a'.repeat(40)}`),
      daySpend: keys.daySpend(owner, grantId, '2026-12-04'),
      idempotency: keys.idempotency(owner, `schedule:${workflowId}`, apiKey),
      eventIdempotency: keys.idempotency(owner, `event:${workflowId}`, eventId),
      pendingRun: keys.pendingRun(createdAt, runId),
      ownerAnchorRun: keys.ownerAnchorRun(owner, runId),
      signedHead: keys.signedHead(owner, 999_999_999, 999_999_999),
      triggerIndex: triggerIndexKey('schedule', owner, workflowId),
      grantHead: jobKeys.grantHead(owner, clientId),
      jobIdempotency: jobKeys.idempotency(grantId, apiKey),
      jobRequest: jobKeys.request(grantId, 'f'.repeat(64)),
    }),
  )('%s fits', (_, key) => {
    expect(utf8Length(key.pk)).toBeLessThanOrEqual(PARTITION_KEY_MAX_BYTES);
    expect(utf8Length(key.sk)).toBeLessThanOrEqual(SORT_KEY_MAX_BYTES);
  });

  it.each(
    Object.entries({
      runByOwner: indexKeys.runByOwner(owner, createdAt, runId),
      runByWorkflow: indexKeys.runByWorkflow(owner, workflowId, createdAt, runId),
      approvalByOwner: indexKeys.approvalByOwner(owner, createdAt, `apr_${'a'.repeat(40)}`),
      humanTaskByOwner: indexKeys.humanTaskByOwner(owner, createdAt, `htk_${'a'.repeat(40)}_${stepId}_9999`),
      grant: grantIndexKeys(owner, clientId, grantId),
    }),
  )('index keys of %s fit', (_, key) => {
    const [pk1, sk1, pk2, sk2] = Object.entries(key).map(([, value]) => utf8Length(String(value)));
    for (const pk of [pk1, pk2])
      if (pk !== undefined) expect(pk).toBeLessThanOrEqual(PARTITION_KEY_MAX_BYTES);
    for (const sk of [sk1, sk2]) if (sk !== undefined) expect(sk).toBeLessThanOrEqual(SORT_KEY_MAX_BYTES);
  });
});
