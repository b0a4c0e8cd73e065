/**
 * Checks the stored transcript against the hashes the audit chain recorded when it was written:
 * - `model_call` carries `contentHash` of the assistant message of its turn, as stored;
 * - `settle` and `denial` carry `contentHash` of the tool result they produced, which the next message
 *   must hold for that tool_use id;
 * - `denial` carries `argsHash` of the call it refused, which the asking tool_use must still hash to.
 * The chain itself is verified first (verifyAuditChain); this names the first entry whose binding no longer
 * holds, so an edited transcript fails `wf audit verify`. Entries written before these fields existed bind
 * nothing and are skipped.
 */
import type { AuditEntry } from '../audit/index.ts';
import type { TranscriptMessage } from '../schemas/message.ts';
import { argsHashOf } from './identity.ts';
import type { ContentBlock, ToolUseBlock } from './ports.ts';
import { toolUsesOf } from './transcript.ts';
import { contentHashOf } from './transcript-limits.ts';

export type TranscriptBindingFailure = {
  ok: false;
  firstBrokenSeq: number;
  reason: 'transcript_mismatch';
  message: string;
};
export type TranscriptBinding = { ok: true } | TranscriptBindingFailure;

type Asked = { use: ToolUseBlock; message: TranscriptMessage };

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Verifies `messages` (a run's transcript, in order) against `entries` (its verified audit chain). */
export function verifyTranscriptBinding(
  entries: readonly AuditEntry[],
  messages: readonly TranscriptMessage[],
): TranscriptBinding {
  const asked = new Map<string, Asked>();
  for (const message of messages)
    if (message.role === 'assistant')
      for (const use of toolUsesOf({ content: message.content as ContentBlock[] }))
        asked.set(use.id, { use, message });
  const answerOf = (call: Asked) =>
    messages
      .find((message) => message.seq === call.message.seq + 1)
      ?.content.find((block) => block.type === 'tool_result' && block.tool_use_id === call.use.id);

  for (const entry of entries) {
    const fail = (detail: string): TranscriptBindingFailure => ({
      ok: false,
      firstBrokenSeq: entry.seq,
      reason: 'transcript_mismatch',
      message: `seq ${entry.seq} (${entry.type}): ${detail}`,
    });
    const contentHash = str(entry.data.contentHash);
    if (entry.type === 'model_call' && contentHash) {
      const turn = entry.data.turn;
      const message = messages.find((m) => m.role === 'assistant' && m.turn === turn);
      if (!message) return fail(`the transcript has no assistant message for turn ${String(turn)}`);
      if (contentHashOf(message.content) !== contentHash)
        return fail(`assistant message ${message.seq} (turn ${String(turn)}) does not match its hash`);
      continue;
    }
    if (entry.type !== 'settle' && entry.type !== 'denial') continue;
    // A graph step's call (shared/graph-run): its result is the step's output, there is no transcript.
    if (str(entry.data.stepId)) continue;
    const toolUseId = str(entry.data.toolUseId);
    if (!toolUseId) continue;
    const call = asked.get(toolUseId);
    const argsHash = str(entry.data.argsHash);
    if (!call) {
      if (contentHash || argsHash) return fail(`no tool_use ${toolUseId} in the transcript`);
      continue;
    }
    if (entry.type === 'denial' && argsHash && argsHashOf(call.use.name, call.use.input) !== argsHash)
      return fail(`tool_use ${toolUseId} no longer has the arguments that were refused`);
    if (!contentHash) continue;
    const answer = answerOf(call);
    const answered = messages.some((message) => message.seq === call.message.seq + 1);
    // The answer is written when the turn commits; until then there is nothing to compare.
    if (!answer) {
      if (answered) return fail(`the tool_result of ${toolUseId} is missing`);
      continue;
    }
    if (answer.type === 'tool_result' && contentHashOf(answer.content) !== contentHash)
      return fail(`the tool_result of ${toolUseId} does not match its hash`);
  }
  return { ok: true };
}
