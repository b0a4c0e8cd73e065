/** Transcript helpers: the model's view of stored messages, tool uses and their results. */
import type { TranscriptMessage } from '../schemas/message.ts';
import type { TriggerProvenance } from '../schemas/run.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import type { ContentBlock, Message, ToolOutcome, ToolUseBlock } from './ports.ts';

export const toolUsesOf = (message: { content: ContentBlock[] }): ToolUseBlock[] =>
  message.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');

/** The text the model wrote in a message (its stated reason before a tool call, or its final answer). */
export const textOf = (message: { content: ContentBlock[] }): string =>
  message.content
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n')
    .trim();

export const toModelMessages = (messages: TranscriptMessage[]): Message[] =>
  messages.map((message) => ({ role: message.role, content: message.content as ContentBlock[] }));

/** The user message that answers every tool_use of an assistant message, in order, exactly once. */
export function toolResultContent(
  assistant: { content: ContentBlock[] },
  outcomes: Map<string, ToolOutcome>,
): ContentBlock[] {
  return toolUsesOf(assistant).map((use) => {
    const outcome = outcomes.get(use.id) ?? {
      content: 'No result was recorded for this call.',
      isError: true,
    };
    return {
      type: 'tool_result',
      tool_use_id: use.id,
      content: outcome.content,
      ...(outcome.isError ? { is_error: true } : {}),
    };
  });
}

/** The system prompt: persona plus injected knowledge snippets. */
export function systemPromptOf(definition: WorkflowDefinition): string {
  const knowledge = definition.prompt.knowledge
    .map((item) => `<knowledge title="${item.title.replaceAll('"', "'")}">\n${item.text}\n</knowledge>`)
    .join('\n');
  return knowledge ? `${definition.prompt.system}\n\n${knowledge}` : definition.prompt.system;
}

/** The first user message: the trigger context and the run input, as data the model can read. */
export function triggerContextText(trigger: TriggerProvenance, input: unknown, nowIso: string): string {
  const lines = [`This run was started at ${nowIso}.`];
  if (trigger.type === 'schedule')
    lines.push(`Trigger: schedule '${trigger.scheduleName}', scheduled for ${trigger.scheduledTime}.`);
  if (trigger.type === 'event')
    lines.push(`Trigger: event ${trigger.eventId} from '${trigger.source}' (${trigger.detailType}).`);
  if (trigger.type === 'on_demand') lines.push(`Trigger: started on demand by ${trigger.caller}.`);
  // A delegated job's input is its task, given as the client wrote it.
  if (trigger.type === 'job') {
    lines.push(`Trigger: delegated job ${trigger.jobId} submitted by client ${trigger.clientId}.`);
    if (typeof input === 'string') return [...lines, `Task:\n${input}`].join('\n');
  }
  if (input !== undefined) lines.push(`Input:\n${JSON.stringify(input, null, 2)}`);
  return lines.join('\n');
}

/**
 * Checks the Messages API invariant: every tool_use is answered by exactly one tool_result in the next
 * user message. Returns the problems found (empty when valid).
 */
export function transcriptProblems(messages: { role: string; content: ContentBlock[] }[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    const expected = message.role === 'assistant' ? toolUsesOf(message).map((use) => use.id) : [];
    const next = messages[index + 1];
    const previous = messages[index - 1];
    if (message.role === 'user') {
      const results = message.content.flatMap((block) =>
        block.type === 'tool_result' ? [block.tool_use_id] : [],
      );
      const asked = previous ? toolUsesOf(previous).map((use) => use.id) : [];
      for (const id of results)
        if (!asked.includes(id)) problems.push(`message ${index}: tool_result ${id} answers no tool_use`);
      if (new Set(results).size !== results.length) problems.push(`message ${index}: duplicate tool_result`);
    }
    if (index > 0 && previous?.role === message.role)
      problems.push(`message ${index}: two ${message.role} messages in a row`);
    if (expected.length > 0 && next) {
      const answered = next.content.flatMap((block) =>
        block.type === 'tool_result' ? [block.tool_use_id] : [],
      );
      for (const id of expected) {
        const count = answered.filter((answer) => answer === id).length;
        if (count !== 1) problems.push(`message ${index}: tool_use ${id} answered ${count} times`);
      }
    }
  });
  return problems;
}
