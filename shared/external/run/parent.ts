/**
 * A graph step's child external run that a step has just ended (`next: stop`: failed, cancelled,
 * outcome_unknown, shadow, report_only) answers its parent step's wait here. A live run that succeeded goes on
 * to Deliver, which answers it; a run MarkExternalFailed ends is answered there (functions/mark-failed.ts).
 * Answering twice is harmless: the second finds the wait closed (shared/graph-run/parent-answer.ts).
 */
import type { Run } from '../../schemas/run.ts';
import type { ExternalNext, ExternalRunDeps } from './ports.ts';

export async function answerParentIfEnded(
  deps: Pick<ExternalRunDeps, 'store'> & { answerParent?: ((run: Run) => Promise<unknown>) | undefined },
  next: ExternalNext,
): Promise<void> {
  if (next.next !== 'stop' || !deps.answerParent) return;
  const run = await deps.store.getRun(next.runId);
  if (run?.parent) await deps.answerParent(run);
}
