/**
 * What the real Messages API refuses in a request's `messages` (400 `invalid_request_error`), checked by the
 * scripted server so a runtime that passes offline does not fail on its first real call. Each rule cites where
 * it is documented (read 2026-12-04); docs/scripted-model.md lists them. A problem names its field path as the
 * API does (`messages.3.content.0: …`).
 */

type Block = Record<string, unknown>;
type Message = { role?: unknown; content?: unknown };

const isObject = (value: unknown): value is Block =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

// https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use: `tool_use.id` pattern, as
// the API answers a foreign id ("messages.1.content.0.tool_use.id: String should match pattern …").
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

/** A message's blocks: a string is shorthand for one text block (Create a Message, `messages`). */
const blocksOf = (message: Message): Block[] =>
  typeof message.content === 'string'
    ? [{ type: 'text', text: message.content }]
    : Array.isArray(message.content)
      ? message.content.filter(isObject)
      : [];

const isEmptyContent = (message: Message) =>
  message.content === '' || (Array.isArray(message.content) && message.content.length === 0);

/**
 * Empty and whitespace-only text blocks, the API's two answers
 * (https://github.com/anthropics/anthropic-sdk-python/issues/461,
 * https://github.com/anthropics/claude-code/issues/23440): in a message and inside a tool_result's content.
 */
function textProblems(path: string, blocks: Block[]): string[] {
  return blocks.flatMap((block, j) => {
    const at = `${path}.${j}`;
    if (block.type === 'tool_result' && Array.isArray(block.content))
      return textProblems(`${at}.content`, block.content.filter(isObject));
    if (block.type !== 'text' || typeof block.text !== 'string') return [];
    if (block.text === '') return [`${at}: text content blocks must be non-empty`];
    if (block.text.trim() === '') return [`${at}: text content blocks must contain non-whitespace text`];
    return [];
  });
}

const isEmptyResult = (content: unknown) =>
  content === undefined || content === '' || (Array.isArray(content) && content.length === 0);

/** One conversational turn: consecutive messages of a role, which the API combines into one turn. */
type Turn = { role: unknown; blocks: { block: Block; path: string }[]; first: number };

function turnsOf(messages: Message[]): Turn[] {
  const turns: Turn[] = [];
  messages.forEach((message, i) => {
    const blocks = blocksOf(message).map((block, j) => ({ block, path: `messages.${i}.content.${j}` }));
    const last = turns.at(-1);
    if (last && last.role === message.role) last.blocks.push(...blocks);
    else turns.push({ role: message.role, blocks, first: i });
  });
  return turns;
}

/**
 * Tool use and its results, as "Handling results from client tools" requires
 * (https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use): every tool_use of an
 * assistant turn answered by a tool_result in the next (user) turn, the tool_result blocks first in it, each
 * naming a tool_use of the assistant turn just before; tool_use ids unique and of the API's pattern.
 */
function toolProblems(messages: Message[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const turns = turnsOf(messages);
  turns.forEach((turn, t) => {
    const previous = turns[t - 1];
    const asked = new Set(
      previous?.role === 'assistant'
        ? previous.blocks.flatMap(({ block }) => (block.type === 'tool_use' ? [String(block.id)] : []))
        : [],
    );
    let leading = true;
    for (const { block, path } of turn.blocks) {
      if (block.type === 'tool_use') {
        const id = typeof block.id === 'string' ? block.id : '';
        if (!TOOL_USE_ID.test(id))
          problems.push(`${path}.tool_use.id: String should match pattern '${TOOL_USE_ID.source}'`);
        else if (seen.has(id)) problems.push(`${path}: \`tool_use\` ids must be unique`);
        seen.add(id);
      }
      if (block.type !== 'tool_result') {
        leading = false;
        continue;
      }
      // An error result must say something: the API's answer, as several public clients quote it (no page of
      // the documentation states it; docs/scripted-model.md).
      if (block.is_error === true && isEmptyResult(block.content))
        problems.push(`${path}.tool_result: content cannot be empty if \`is_error\` is true`);
      if (!asked.has(String(block.tool_use_id)))
        problems.push(
          `${path}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      else if (!leading)
        problems.push(
          `${path}: tool_result blocks must come first in the content array, before any other block`,
        );
    }
    const next = turns[t + 1];
    if (turn.role !== 'assistant' || !next) return;
    const answered = new Set<string>();
    for (const { block } of next.blocks) {
      if (block.type !== 'tool_result') break;
      answered.add(String(block.tool_use_id));
    }
    const unanswered = turn.blocks.flatMap(({ block }) =>
      block.type === 'tool_use' && !answered.has(String(block.id)) ? [String(block.id)] : [],
    );
    if (unanswered.length > 0)
      problems.push(
        `messages.${next.first - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
  });
  return problems;
}

/** Every rule on `messages` that the request breaks (none: the API would accept them). */
export function messageProblems(messages: unknown): string[] {
  // Create a Message (https://platform.claude.com/docs/en/api/messages/create): `messages` is required; each
  // message has a `role` of `user` or `assistant` and a `content`.
  if (!Array.isArray(messages) || messages.length === 0)
    return ['messages: at least one message is required'];
  const problems: string[] = [];
  const list = messages.map((message) => (isObject(message) ? message : {})) as Message[];
  list.forEach((message, i) => {
    if (message.role !== 'user' && message.role !== 'assistant')
      problems.push(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    // Only a final assistant message may be empty, as the API answers ("all messages must have non-empty content
    // except for the optional final assistant message": https://github.com/anthropics/claude-code/issues/3196).
    const final = i === list.length - 1 && message.role === 'assistant';
    if (isEmptyContent(message)) {
      if (!final)
        problems.push(
          `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
        );
    } else if (typeof message.content !== 'string' && !Array.isArray(message.content))
      problems.push(`messages.${i}.content: Field required`);
    else problems.push(...textProblems(`messages.${i}.content`, blocksOf(message)));
  });
  // A final assistant message is a prefill; it "cannot end with trailing whitespace"
  // (https://platform.claude.com/docs/en/build-with-claude/prompt-engineering/prefill-claudes-response).
  const last = list.at(-1);
  const lastBlock = last?.role === 'assistant' ? blocksOf(last).at(-1) : undefined;
  if (lastBlock?.type === 'text' && typeof lastBlock.text === 'string' && /\s$/.test(lastBlock.text))
    problems.push(`messages.${list.length - 1}: final assistant content cannot end with trailing whitespace`);
  return [...problems, ...toolProblems(list)];
}
