/**
 * How an external step ends (pure): its child's answer by the node's mode, the failure names a caller can tell
 * apart (OutcomeUnknown is not ExternalFailed), and how the step starts (mode off, payload rendering, its bound).
 */
import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../shared/graph-run/complete-step.ts';
import { externalStepOutcome } from '../../shared/graph-run/external-outcome.ts';
import {
  EXTERNAL_WAIT_MARGIN_SECONDS,
  externalWaitSeconds,
  MAX_EXTERNAL_PAYLOAD_BYTES,
  startExternalStep,
} from '../../shared/graph-run/external-start.ts';
import type { ExternalTaskNode } from '../../shared/graph-run/external-view.ts';

const node = (extra: Partial<ExternalTaskNode> = {}): ExternalTaskNode => ({
  id: 'build',
  type: 'external_task',
  engine: 'http-runtime',
  mode: 'live',
  payload: { branch: '{{ input.branch }}' },
  output: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
  timeoutSeconds: 600,
  ...extra,
});
const data = { input: { branch: 'main' }, steps: {} };

describe('Function: externalStepOutcome', () => {
  it('live: the JSON result validated against the schema is the output', () => {
    expect(externalStepOutcome(node(), { status: 'done', text: '{"ok":true}' })).toEqual({
      status: 'succeeded',
      output: { ok: true },
    });
  });

  it('live without a schema: the result text', () => {
    expect(externalStepOutcome(node({ output: undefined }), { status: 'done', text: 'green' })).toEqual({
      status: 'succeeded',
      output: { text: 'green' },
    });
  });

  it('live: a result that does not match fails InvalidOutput', () => {
    expect(externalStepOutcome(node(), { status: 'done', text: '{"ok":"yes"}' })).toMatchObject({
      status: 'failed',
      error: { name: 'InvalidOutput' },
    });
  });

  it.each(['shadow', 'report_only'] as const)('%s: succeeds and passes no result on', (mode) => {
    expect(externalStepOutcome(node({ mode }), { status: 'done', text: '{"ok":true}' })).toEqual({
      status: 'succeeded',
    });
  });

  it.each([
    [{ status: 'failed', stopReason: 'error', error: 'compile error' }, 'ExternalFailed', 'compile error'],
    [
      { status: 'failed', stopReason: 'outcome_unknown', error: 'no usable answer' },
      'OutcomeUnknown',
      'ended failed (outcome_unknown): no usable answer',
    ],
    [{ status: 'failed', stopReason: 'timeout' }, 'ExternalTimedOut', 'ended failed (timeout)'],
    [{ status: 'cancelled', stopReason: 'cancelled' }, 'ExternalCancelled', 'ended cancelled'],
  ])('a child that ended %o fails the step %s', (answer, name, message) => {
    expect(externalStepOutcome(node(), { text: '', ...answer })).toEqual({
      status: 'failed',
      error: { name, message: expect.stringContaining(message) },
    });
  });

  it("the wait's backstop timeout fails the step TimedOut", () => {
    expect(
      outcomeOf(node(), {
        runId: 'r',
        stepId: 'build',
        type: 'external_task',
        attempt: 1,
        error: { Error: 'States.Timeout' },
      }),
    ).toMatchObject({ status: 'failed', error: { name: 'TimedOut' } });
  });
});

describe('Function: startExternalStep', () => {
  it('renders the payload from the run data and keeps it on the step', async () => {
    expect(await startExternalStep(node(), 1, data)).toEqual({
      status: 'running',
      fields: { attempt: 1, input: { payload: { branch: 'main' } } },
    });
  });

  it('fails a node in mode off at once, naming the step and what to set', async () => {
    const started = await startExternalStep(node({ mode: 'off' }), 2, data);
    expect(started).toMatchObject({
      status: 'failed',
      fields: {
        attempt: 2,
        error: { name: 'ExternalModeOff', message: expect.stringContaining('step build') },
      },
    });
  });

  it('fails a payload that does not render, or renders over the bound', async () => {
    const bad = await startExternalStep(node({ payload: { x: '{{ $error("no") }}' } }), 1, data);
    expect(bad).toMatchObject({ status: 'failed', fields: { error: { name: 'TemplateRenderError' } } });
    // Each value within a template's own result bound, together over the payload's.
    const big = { input: { branch: 'x'.repeat(MAX_EXTERNAL_PAYLOAD_BYTES / 2) }, steps: {} };
    const twice = node({ payload: { a: '{{ input.branch }}', b: '{{ input.branch }}' } });
    expect(await startExternalStep(twice, 1, big)).toMatchObject({
      status: 'failed',
      fields: { error: { name: 'PayloadTooLarge' } },
    });
  });

  it("waits past the child's own deadline by the margin (the wait's timeout is a backstop)", () => {
    expect(externalWaitSeconds(600)).toBe(600 + EXTERNAL_WAIT_MARGIN_SECONDS);
  });
});
