/**
 * A run that a step has just ended (`next: stop`: failed, denied, cancelled, outcome_unknown, shadow,
 * report_only), read once: a graph step's child run answers its parent step's wait here, and the run is handed
 * back so the handler can tell its owner (functions/external.ts). A live run that succeeded goes on to Deliver,
 * which answers it; a run MarkExternalFailed ends is answered there (functions/mark-failed.ts). Answering twice is
 * harmless: the second finds the wait closed (shared/graph-run/parent-answer.ts).
 */
import type { Run } from '../../schemas/run.ts';
import type { ExternalNext, ExternalRunDeps } from './ports.ts';

export async function answerParentIfEnded(
  deps: Pick<ExternalRunDeps, 'store'> & { answerParent?: ((run: Run) => Promise<unknown>) | undefined },
  next: ExternalNext,
): Promise<Run | undefined> {
  if (next.next !== 'stop') return undefined;
  const run = await deps.store.getRun(next.runId);
  if (run?.parent && deps.answerParent) await deps.answerParent(run);
  return run;
}
