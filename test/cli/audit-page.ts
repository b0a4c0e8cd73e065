/** A run's audit page as the API answers it, for the stand-in APIs of the CLI's followers (watchRun). */
import type { RunAuditPage } from '../../shared/runs/audit-reader.ts';

/** A page with no entries: a run that wrote none yet. */
export const emptyAuditPage = (runId: string): RunAuditPage => ({
  runId,
  entries: [],
  from: { seq: 0, prevHash: '' },
  verification: { ok: true, count: 0, head: '' },
  anchor: null,
  anchored: false,
});
