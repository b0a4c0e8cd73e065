/** The run timeline: what each audit entry says to a person, and which entries are highlighted as refusals. */
import { describe, expect, it } from 'vitest';
import { describe as describeEntry, isRefusal, timeline } from '../../shared/console/pages/timeline.ts';

const entry = (type: string, data: Record<string, unknown>, seq = 0) =>
  ({
    schemaVersion: 1,
    owner: 'alice',
    runId: 'run_abcdef123',
    seq,
    at: '2026-12-01T07:00:00.000Z',
    type,
    actor: 'system',
    data,
    prevHash: '0'.repeat(64),
    hash: '1'.repeat(64),
  }) as Parameters<typeof isRefusal>[0] & Parameters<typeof timeline>[0][number];

describe('console timeline', () => {
  it('shows a model call with its tokens, cache reads and writes, and cost', () => {
    const line = describeEntry(
      entry('model_call', {
        turn: 2,
        model: 'claude-sonnet-4-5',
        stopReason: 'tool_use',
        usage: { inputTokens: 900, outputTokens: 40, cacheReadInputTokens: 700, cacheCreationInputTokens: 5 },
        costUsd: 0.0012,
      }),
    );
    expect(line).toBe(
      'turn 2: claude-sonnet-4-5 → tool_use; 900 in, 40 out, 700 cache read, 5 cache write; $0.001200',
    );
  });

  it.each([
    ['denial', { tool: 'post_to_site', reason: 'gate' }, true],
    ['gate_decision', { tool: 'post_to_site', decision: 'deny' }, true],
    ['approval_decided', { tool: 'post_to_site', decision: 'denied' }, true],
    ['approval_expired', { approvalId: 'apr_x' }, true],
    ['egress_blocked', { host: 'evil.example' }, true],
    ['budget_exceeded', { scope: 'day' }, true],
    ['gate_decision', { tool: 'fetch_url', decision: 'allow' }, false],
    ['approval_decided', { tool: 'post_to_site', decision: 'approved' }, false],
    ['dispatch', { tool: 'post_to_site' }, false],
  ])('highlights %s %j: %s', (type, data, refused) => {
    expect(isRefusal(entry(type, data))).toBe(refused);
  });

  it('marks refused rows in the table and escapes what the entries carry', async () => {
    const html = String(
      await timeline([
        entry('gate_decision', { tool: '<img src=x>', decision: 'deny' }, 0),
        entry('dispatch', { tool: 'fetch_url' }, 1),
      ]),
    );
    expect(html).toContain('<tr class="denied" data-type="gate_decision">');
    expect(html).toContain('<tr class="" data-type="dispatch">');
    expect(html).toContain('&lt;img src=x&gt;');
    expect(html).not.toContain('<img');
  });
});
