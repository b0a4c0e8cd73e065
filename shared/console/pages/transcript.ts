/** A run's transcript as a person reads it: each message's text, tool calls with their arguments, results. */
import { html } from 'hono/html';
import type { MessagePart } from '../../runs/message-parts.ts';
import type { TranscriptPageBody } from '../../runs/transcript-reader.ts';
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

const messageHtml = (message: TranscriptMessage) =>
  html`<h3>${message.role} · turn ${message.turn}</h3>${(message.content as Block[]).map(
    (block) => html`<pre>${blockText(block)}</pre>`,
  )}`;

/** A part of a message too large for one page: its blocks as they are, a cut block's text going on next page. */
const partHtml = (part: MessagePart) =>
  html`<h3>${part.role} · turn ${part.turn} · part ${part.part + 1} of ${part.parts}</h3>${(
    part.content as Block[]
  ).map((block) => html`<pre>${block.type === 'continued' ? (block.text ?? '') : blockText(block)}</pre>`)}`;

/**
 * One page of the transcript as the API gives it (a page is at most 1 MB of messages): its messages, or a
 * part of one message too large for a page, then a link to the next page.
 */
export function transcript(page: TranscriptPageBody, runId: string, later = false) {
  if (page.messages.length === 0 && !page.messagePart) return html`<p class="muted">No messages yet.</p>`;
  const first = later ? html`<p><a href="/console/runs/${runId}">First messages</a></p>` : '';
  const next = page.nextToken
    ? html`<p><a id="transcript-next" href="/console/runs/${runId}?transcript=${encodeURIComponent(page.nextToken)}"
>Later messages</a></p>`
    : '';
  return html`<div id="transcript">${first}${page.messages.map(messageHtml)}${
    page.messagePart ? partHtml(page.messagePart) : ''
  }${next}</div>`;
}
