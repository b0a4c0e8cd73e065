/** deliver and mark-failed: when a graph step's child run ends, answer the parent's wait. */
import { answerParentStep, type ParentAnswerDeps } from '../../graph-run/parent-answer.ts';
import type { Run } from '../../schemas/run.ts';
import { awsTaskTokens } from './approvals.ts';

export const awsAnswerParent =
  (store: ParentAnswerDeps['store']) =>
  (run: Run): Promise<unknown> =>
    answerParentStep({ store, taskTokens: awsTaskTokens() }, run);
