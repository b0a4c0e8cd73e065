/** A run's transcript as a person reads it: each message's text, tool calls with their arguments, results. */
import { html } from 'hono/html';
import type { TranscriptMessage } from '../../schemas/message.ts';

type Block = {
  type: string;
  text?: string;
  name?: string;
  input?: unknown;
  content?: unknown;
  is_error?: boolean;
};

const blockText = (block: Block): string => {
  if (block.type === 'text') return block.text ?? '';
  if (block.type === 'tool_use') return `→ ${block.name}(${JSON.stringify(block.input, null, 2)})`;
  if (block.type === 'tool_result') {
    const content =
      typeof block.content === 'string' ? block.content : JSON.stringify(block.content, null, 2);
    return `${block.is_error ? '✗ error result' : '← result'}: ${content}`;
  }
  return `[${block.type}]`;
};

export function transcript(messages: readonly TranscriptMessage[]) {
  if (messages.length === 0) return html`<p class="muted">No messages yet.</p>`;
  return html`<div id="transcript">${messages.map(
    (message) =>
      html`<h3>${message.role} · turn ${message.turn}</h3>${(message.content as Block[]).map(
        (block) => html`<pre>${blockText(block)}</pre>`,
      )}`,
  )}</div>`;
}
