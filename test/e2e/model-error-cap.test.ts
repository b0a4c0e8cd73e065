/**
 * A model API error with a very long body, end to end on the local stack: the real Anthropic SDK against the
 * scripted server, which answers the turn's call HTTP 400 `invalid_request_error` with a message of 6,000 emoji
 * (docs/scripted-model.md, "Scripted errors"). The SDK quotes the whole body in its error's message
 * (https://docs.anthropic.com/en/api/errors: `{"type":"error","error":{"type","message"},"request_id"}`), the Turn
 * fails with `ModelBadRequestError` (not retried), the Catch sends its Lambda error (`Cause`: JSON with
 * `errorMessage`) to MarkFailed, which ends the run. Before, the run stored that message whole (12,000+
 * characters, answered as such by `GET /v1/runs/{id}`); now it is cut to 2,000 UTF-16 units, never inside an emoji
 * (shared/core/stored-error.ts), and the run's audit chain verifies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORED_ERROR_MESSAGE_UNITS } from '../../shared/core/stored-error.ts';
import {
  applyWorkflowText,
  createOwnTable,
  type E2eStack,
  gatedNotesWorkflow,
  getAudit,
  removeDir,
  runEnded,
  startE2eStack,
  startRun,
  tempDataDir,
} from './support.ts';

const NAME = 'e2e-model-error-cap';
const EMOJI = '\u{1F600}';
const BODY_MESSAGE = `the request was refused: ${EMOJI.repeat(6_000)}`;

let e2e: E2eStack;
let dataDir: string;
let workflowId: string;

beforeAll(async () => {
  dataDir = await tempDataDir();
  e2e = await startE2eStack(await createOwnTable(), {
    dataDir,
    // Every attempt of the first call is refused: the run ends at its first turn.
    fixtures: [{ name: NAME, turns: [{ error: { status: 400, message: BODY_MESSAGE } }] }],
  });
  workflowId = await applyWorkflowText(e2e, NAME, gatedNotesWorkflow(NAME));
});

afterAll(async () => {
  await e2e?.stack.stop();
  await removeDir(dataDir);
});

describe('A model API error with a very long body', () => {
  it('ends the run failed with its error cut to the stored cap, well-formed, and a verified audit chain', async () => {
    // Act
    const runId = await startRun(e2e, workflowId);
    const run = await runEnded(e2e, runId);

    // Assess: the run as the API answers it
    expect(run).toMatchObject({
      status: 'failed',
      stopReason: 'error',
      error: { name: 'ModelBadRequestError' },
    });
    const message = run.error?.message ?? '';
    expect(message).toMatch(/^model API error: 400 .*the request was refused: \u{1F600}/u);
    expect(message.length).toBeLessThanOrEqual(STORED_ERROR_MESSAGE_UNITS);
    // Cut at a whole emoji: at most one unit short of the cap, never half of one.
    expect(message.length).toBeGreaterThanOrEqual(STORED_ERROR_MESSAGE_UNITS - 1);
    expect(message.isWellFormed()).toBe(true);
    expect(message.endsWith(EMOJI)).toBe(true);

    // Its audit chain, verified by the API, holds MarkFailed's error entry (cut to 1,000) and the status change.
    const audit = await getAudit(e2e, runId);
    expect(audit.verification).toMatchObject({ ok: true });
    const entry = audit.entries.find((candidate) => candidate.type === 'error');
    expect(entry?.data).toMatchObject({ name: 'ModelBadRequestError' });
    const audited = (entry?.data as { message?: string } | undefined)?.message ?? '';
    expect(audited.isWellFormed()).toBe(true);
    expect(message.startsWith(audited)).toBe(true);
    expect(audit.entries.at(-1)).toMatchObject({ type: 'status_changed', data: { to: 'failed' } });
  });
});
