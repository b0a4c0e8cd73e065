/**
 * Only a live external run goes to its destination, whoever asks (Deliver, MarkFailed's delivery failure, the
 * local stack's leftover delivery on restart, `wf run --wait`): shadow and report_only publish nothing.
 */
import { describe, expect, it } from 'vitest';
import { isDeliverable } from '../../shared/core/degraded.ts';

const external = (mode: 'shadow' | 'report_only' | 'live') => ({
  status: 'done' as const,
  degraded: undefined,
  external: { engine: 'http-runtime', mode, key: 'wf-run-1', observes: 0 },
});

describe('isDeliverable for external runs', () => {
  it('is true for a finished live run', () => {
    expect(isDeliverable(external('live'))).toBe(true);
  });

  it('is false for shadow and report_only runs, even when done', () => {
    expect(isDeliverable(external('report_only'))).toBe(false);
    expect(isDeliverable(external('shadow'))).toBe(false);
  });

  it('is unchanged for agent runs', () => {
    expect(isDeliverable({ status: 'done', degraded: undefined })).toBe(true);
    expect(isDeliverable({ status: 'failed', degraded: undefined })).toBe(false);
  });
});
