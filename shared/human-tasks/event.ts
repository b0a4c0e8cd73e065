/** The event of the graph's `human_task` wait (`lambda:invoke.waitForTaskToken`), as functions/request-human-task.ts reads it. */
import { z } from 'zod';
import { HumanTaskNodeSchema } from '../graph/definition.ts';

export const RequestHumanTaskEventSchema = z.object({
  runId: z.string().min(1),
  stepId: z.string().min(1),
  attempt: z.number().int().min(1).optional(),
  /** `$$.Task.Token`: stored on the task record only, never logged. */
  taskToken: z.string().min(1),
  node: HumanTaskNodeSchema,
  /** `{ input, steps }`: what the node's context paths are evaluated over. */
  runData: z.unknown(),
});
