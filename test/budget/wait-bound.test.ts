/** The budget's in-invocation wait fits the Turn function's timeout next to the longest model call. */
import { describe, expect, it } from 'vitest';
import { FUNCTION_SETTINGS } from '../../infra/constructs/workflow-runtime-props.ts';
import { DEFAULT_BUDGET_WAIT_MS } from '../../shared/core/budget.ts';
import { DEFAULT_MODEL_TIMEOUT_MS } from '../../shared/model/messages-port.ts';

describe('budget wait bound', () => {
  it('wait + model call + a minute for tools and commits stay under the Turn Lambda timeout (≤ 15 min)', () => {
    // Prepare: https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html (at most 900 s).
    const turnTimeoutMs = (FUNCTION_SETTINGS.turn.timeout?.toSeconds() ?? 0) * 1000;

    // Assess
    expect(turnTimeoutMs).toBeLessThanOrEqual(900_000);
    expect(DEFAULT_BUDGET_WAIT_MS + DEFAULT_MODEL_TIMEOUT_MS + 60_000).toBeLessThanOrEqual(turnTimeoutMs);
  });
});
