/** `destination`: where a finished run's result goes. */
import * as z from '../zod.ts';

export const DestinationSchema = z.discriminatedUnion('type', [
  z
    .strictObject({ type: z.literal('stored') })
    .check(z.describe('Keep the result on the run (always done).')),
  z
    .strictObject({
      type: z.literal('report'),
      title: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
    })
    .check(z.describe('Store a Markdown report of the run: result, actions taken, cost.')),
  z.strictObject({
    type: z.literal('alert'),
    topicArn: z
      .optional(
        z
          .string()
          .check(
            z.regex(
              /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+(\.fifo)?$/,
              'must be an SNS topic ARN',
            ),
          ),
      )
      .check(z.describe('Defaults to the runtime notice topic.')),
    subject: z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
  }),
  z.strictObject({
    type: z.literal('http'),
    action: z.string().check(z.describe('A connector of this workflow that receives the result.')),
  }),
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
