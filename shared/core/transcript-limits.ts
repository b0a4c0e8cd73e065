/**
 * Byte caps that keep every transcript write inside DynamoDB's limits (400 KB per item, 4 MB and 100
 * items per transaction; docs/data-model.md "Limits" shows the arithmetic, test/core/transcript-limits.test.ts
 * checks it). Tool results are capped here; messages are split across items by the store.
 */
import { canonicalJson, sha256Hex } from '../audit/index.ts';
import { capUtf8, utf8Length } from './byte-caps.ts';
import { valueBytes } from './item-size.ts';
import type { ContentBlock } from './ports.ts';
import { toolUsesOf } from './transcript.ts';

/** A tool result is cut to this many UTF-8 bytes (marker included), never inside a character. */
export const MAX_TOOL_RESULT_BYTES = 50_000;
/** A refusal (denial text with its reason) is cut to this many bytes. */
export const MAX_REFUSAL_BYTES = 2_000;
/** The arguments an approval item holds (exactly what will run), at most; larger calls are refused. */
export const MAX_APPROVAL_ARGS_BYTES = 200_000;
/** The stored assistant content of one model call, at most (it is split across items by the store). */
export const MAX_ASSISTANT_CONTENT_BYTES = 2_500_000;
/** tool_use blocks in one assistant message, at most: each gets a tool_result in the next message. */
export const MAX_TOOL_USES_PER_MESSAGE = 128;
/** A tool_use id or name longer than this is not a real call (the API's ids are ~30 bytes). */
export const MAX_TOOL_USE_ID_BYTES = 256;

/** The result text kept on the run item (which also holds the run input, up to 256 KB). */
export const MAX_RESULT_TEXT_BYTES = 64 * 1024;

/** The stop reason recorded instead of the model's when its answer was too large to keep. */
export const OUTPUT_TOO_LARGE = 'output_too_large';
/** The stop reason recorded instead of the model's when its answer could not be answered as it is. */
export const OUTPUT_UNUSABLE = 'output_unusable';

/**
 * The tool_use ids the Messages API accepts back in a tool_result: letters, digits, `_` and `-`. The API's own ids
 * look like `toolu_01D7FLrfh4GYq7yT1ULFeyMV`; an id with other characters is refused when it is sent back (`string
 * should match pattern '^[a-zA-Z0-9_-]+$'`, a 400, as third parties report it: github.com/BlockRunAI/ClawRouter
 * pull 18, github.com/HKUDS/nanobot pull 4356). Each id is also a ledger sort key, `TOOL#<id>`, which DynamoDB caps
 * at 1,024 bytes
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-partition-sort-keys):
 * MAX_TOOL_USE_ID_BYTES keeps it far below.
 */
export const TOOL_USE_ID_PATTERN = /^[A-Za-z0-9_-]+$/;

/** Cuts a tool result to `MAX_TOOL_RESULT_BYTES`, saying so in the result. */
export const capToolResult = (content: string): string =>
  capUtf8(content, MAX_TOOL_RESULT_BYTES, `\n[truncated: result exceeded ${MAX_TOOL_RESULT_BYTES} bytes]`);

/** Cuts a refusal to `MAX_REFUSAL_BYTES`. */
export const capRefusal = (content: string): string => capUtf8(content, MAX_REFUSAL_BYTES, ' [truncated]');

/** Cuts a run's result text to `MAX_RESULT_TEXT_BYTES`; the whole answer stays in the transcript. */
export const capResultText = (text: string): string =>
  capUtf8(text, MAX_RESULT_TEXT_BYTES, '\n[truncated: the full answer is in the transcript]');

/** Why a model answer cannot be stored as it is, or undefined when it can. */
export function oversizeReason(content: ContentBlock[]): string | undefined {
  const bytes = valueBytes(content);
  if (bytes > MAX_ASSISTANT_CONTENT_BYTES)
    return `the response is ${bytes} bytes; at most ${MAX_ASSISTANT_CONTENT_BYTES} are kept`;
  const uses = toolUsesOf({ content });
  if (uses.length > MAX_TOOL_USES_PER_MESSAGE)
    return `the response makes ${uses.length} tool calls; at most ${MAX_TOOL_USES_PER_MESSAGE} are answered`;
  const odd = uses.find(
    (use) => utf8Length(use.id) > MAX_TOOL_USE_ID_BYTES || utf8Length(use.name) > MAX_TOOL_USE_ID_BYTES,
  );
  if (odd) return `a tool call has an id or name over ${MAX_TOOL_USE_ID_BYTES} bytes`;
  return undefined;
}

/**
 * Why the tool calls of a model answer cannot be answered as they are, or undefined when they can: an id outside
 * `TOOL_USE_ID_PATTERN` (the next model call would be refused on every retry), or two calls with one id (one
 * ledger row, `TOOL#<id>`, and one tool_result for both). Checked before any call is gated or dispatched.
 */
export function unusableReason(content: ContentBlock[]): string | undefined {
  const seen = new Set<string>();
  for (const use of toolUsesOf({ content })) {
    if (!TOOL_USE_ID_PATTERN.test(use.id))
      return `the tool call id ${JSON.stringify(use.id)} is not letters, digits, '_' and '-' only`;
    if (seen.has(use.id)) return `two tool calls have the id ${JSON.stringify(use.id)}`;
    seen.add(use.id);
  }
  return undefined;
}

/** The audit binding of stored content: SHA-256 over its RFC 8785 canonical JSON. */
export const contentHashOf = (value: unknown): string => sha256Hex(canonicalJson(value ?? null));
