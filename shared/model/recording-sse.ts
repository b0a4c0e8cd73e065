/**
 * The Messages API's stream (SSE) folded back into the message it carried: what a recording keeps.
 * Event shapes: https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
type Block = Record<string, unknown> & { type: string };
export type RecordedMessage = { content: Block[]; stop_reason?: string; usage?: Record<string, unknown> };

type StreamEvent = {
  type: string;
  index: number;
  message?: RecordedMessage;
  content_block?: Block;
  delta?: Record<string, string>;
  usage?: Record<string, unknown>;
  error?: unknown;
};

/** The message of an SSE body (`message_start` … `message_stop`); throws on an `error` event. */
export function messageOfSse(text: string): RecordedMessage {
  let message: RecordedMessage = { content: [] };
  const partialJson = new Map<number, string>();
  for (const frame of text.split(/\r?\n\r?\n/)) {
    const data = frame
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    if (!data) continue;
    const event = JSON.parse(data) as StreamEvent;
    const block = message.content[event.index];
    switch (event.type) {
      case 'message_start':
        message = { ...(event.message as RecordedMessage), content: [] };
        break;
      case 'content_block_start':
        if (event.content_block) message.content[event.index] = { ...event.content_block };
        break;
      case 'content_block_delta': {
        const delta = event.delta ?? {};
        if (!block) break;
        if (delta.type === 'text_delta') block.text = `${block.text ?? ''}${delta.text}`;
        if (delta.type === 'thinking_delta') block.thinking = `${block.thinking ?? ''}${delta.thinking}`;
        if (delta.type === 'signature_delta') block.signature = delta.signature;
        if (delta.type === 'input_json_delta')
          partialJson.set(event.index, `${partialJson.get(event.index) ?? ''}${delta.partial_json}`);
        break;
      }
      case 'content_block_stop': {
        const json = partialJson.get(event.index);
        if (block && json) block.input = JSON.parse(json);
        break;
      }
      case 'message_delta':
        if (event.delta?.stop_reason) message.stop_reason = event.delta.stop_reason;
        message.usage = { ...message.usage, ...event.usage };
        break;
      case 'error':
        throw new Error(`the API sent an error event: ${JSON.stringify(event.error)}`);
    }
  }
  return message;
}
