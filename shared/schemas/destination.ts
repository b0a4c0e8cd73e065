/** `destination`: where a finished run's result goes. */
import * as z from 'zod';

export const DestinationSchema = z.discriminatedUnion('type', [
  z
    .object({ type: z.literal('stored') })
    .strict()
    .describe('Keep the result on the run (always done).'),
  z
    .object({ type: z.literal('report'), title: z.string().min(1).max(200).optional() })
    .strict()
    .describe('Store a Markdown report of the run: result, actions taken, cost.'),
  z
    .object({
      type: z.literal('alert'),
      topicArn: z
        .string()
        .regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+(\.fifo)?$/, 'must be an SNS topic ARN')
        .optional()
        .describe('Defaults to the runtime notice topic.'),
      subject: z.string().min(1).max(100).optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('http'),
      action: z.string().describe('A connector of this workflow that receives the result.'),
    })
    .strict(),
]);
export type Destination = z.infer<typeof DestinationSchema>;

/**
 * Deliver resolves an `http` destination's connector and gate in an agent definition (shared/core/deliver.ts),
 * so only agent workflows may declare one; a graph's or an external workflow's would fail at delivery. The
 * save-time issue of the other kinds, at `destination.type`.
 */
export function agentOnlyDestinationIssues(
  destination: Destination,
  kind: 'graph' | 'external',
): { path: PropertyKey[]; message: string }[] {
  if (destination.type !== 'http') return [];
  return [
    {
      path: ['destination', 'type'],
      message: `${kind} workflows deliver to stored, report or alert (an http destination needs an agent workflow)`,
    },
  ];
}
