/** Transcript messages, stored one item each, in order. */
import * as z from 'zod';
import { IsoTimeSchema, SCHEMA_VERSION, UsageSchema } from './common.ts';

const ContentBlockSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
  z.object({
    type: z.literal('tool_result'),
    tool_use_id: z.string(),
    content: z.string(),
    is_error: z.boolean().optional(),
  }),
  z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
  z.object({ type: z.literal('redacted_thinking'), data: z.string() }),
]);

export const TranscriptMessageSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  turn: z.number().int().nonnegative(),
  role: z.enum(['user', 'assistant']),
  content: z.array(ContentBlockSchema).min(1),
  /** Assistant messages only: the model's stop reason, usage and cost for this call. */
  stopReason: z.string().optional(),
  usage: UsageSchema.optional(),
  costUsd: z.number().nonnegative().optional(),
  model: z.string().optional(),
  createdAt: IsoTimeSchema,
});
export type TranscriptMessage = z.infer<typeof TranscriptMessageSchema>;
