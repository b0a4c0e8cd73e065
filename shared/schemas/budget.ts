/** `budget`: cost ceilings and loop bounds. */
import * as z from 'zod';

export const BudgetSchema = z
  .object({
    maxUsdPerRun: z
      .number()
      .positive('must be greater than 0')
      .max(1000)
      .describe('Per-run cost ceiling in USD.'),
    maxUsdPerDay: z
      .number()
      .positive('must be greater than 0')
      .max(100_000)
      .optional()
      .describe('Per-day ceiling for all runs of this workflow together (UTC days).'),
    maxTurns: z.number().int().min(1).max(200).default(20).describe('Model calls per run.'),
    maxToolCallsPerTurn: z.number().int().min(1).max(50).default(8),
    runTimeoutSeconds: z
      .number()
      .int()
      .min(60)
      .max(7 * 24 * 3600)
      .default(3600),
  })
  .strict();
export type Budget = z.infer<typeof BudgetSchema>;
