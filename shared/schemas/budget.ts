/** `budget`: cost ceilings and loop bounds. */
import * as z from '../zod.ts';

export const BudgetSchema = z.strictObject({
  maxUsdPerRun: z
    .number()
    .check(z.positive('must be greater than 0'), z.lte(1000), z.describe('Per-run cost ceiling in USD.')),
  maxUsdPerDay: z
    .optional(z.number().check(z.positive('must be greater than 0'), z.lte(100_000)))
    .check(z.describe('Per-day ceiling for all runs of this workflow together (UTC days).')),
  maxTurns: z
    ._default(z.number().check(z.int(), z.gte(1), z.lte(200)), 20)
    .check(z.describe('Model calls per run.')),
  maxToolCallsPerTurn: z._default(z.number().check(z.int(), z.gte(1), z.lte(50)), 8),
  runTimeoutSeconds: z._default(z.number().check(z.int(), z.gte(60), z.lte(7 * 24 * 3600)), 3600),
});
export type Budget = z.infer<typeof BudgetSchema>;
