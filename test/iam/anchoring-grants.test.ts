/**
 * Every function that can anchor a run's head (shared/store/anchors.ts: Deliver at the end of a run, MarkFailed,
 * External at its end, a cancel, which the api and the jobs MCP server both serve through endRun, and the jobs
 * sweep when it cancels a job's run or ends an unstarted one) may send what a contended anchor sends: the pending
 * anchor's delete in the anchor's transaction (DeleteItem) and its registration, conditional on the run's marker
 * (ConditionCheckItem). The IAM flow makes that contention for Deliver, MarkFailed, the Mcp's cancels and the
 * jobs sweep's end of a start left pending only (flow.ts, contendedAnchors), so the simulation cannot see a
 * missing grant of the others; this check can.
 */
import { describe, expect, it } from 'vitest';
import { TABLE_ACCESS } from '../../infra/constructs/table-access.ts';

const ANCHORING = ['deliver', 'mark-failed', 'api', 'mcp', 'external', 'jobs-sweep'] as const;

describe('the functions that anchor a run head', () => {
  it.each(ANCHORING)('%s may delete a pending anchor and register one', (fn) => {
    expect(TABLE_ACCESS[fn]).toEqual(
      expect.arrayContaining(['dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem']),
    );
  });
});
