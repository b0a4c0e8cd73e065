/** Transcript messages, stored one item each, in order. */
import * as z from '../zod.ts';
import { IsoTimeSchema, SCHEMA_VERSION, UsageSchema } from './common.ts';

const ContentBlockSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
  z.object({
    type: z.literal('tool_result'),
    tool_use_id: z.string(),
    content: z.string(),
    is_error: z.optional(z.boolean()),
  }),
  z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
  z.object({ type: z.literal('redacted_thinking'), data: z.string() }),
]);

export const TranscriptMessageSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  runId: z.string(),
  seq: z.number().check(z.int(), z.nonnegative()),
  turn: z.number().check(z.int(), z.nonnegative()),
  role: z.enum(['user', 'assistant']),
  content: z.array(ContentBlockSchema).check(z.minLength(1)),
  /** Assistant messages only: the model's stop reason, usage and cost for this call. */
  stopReason: z.optional(z.string()),
  usage: z.optional(UsageSchema),
  costUsd: z.optional(z.number().check(z.nonnegative())),
  model: z.optional(z.string()),
  createdAt: IsoTimeSchema,
});
export type TranscriptMessage = z.infer<typeof TranscriptMessageSchema>;
