/**
 * What the real Messages API refuses in a request (400 `invalid_request_error`), checked by the scripted server
 * on both routes (Bedrock's once its envelope is mapped) before a turn is served, as DynamoDB Local refuses what
 * DynamoDB refuses. Only rules the documentation (or the API's own answers) states, read 2026-12-04; a rule the
 * API does not have would fail tests for no reason. The messages' rules are in scripted-message-rules.ts; the
 * list, with links, is in docs/scripted-model.md ("Request rules").
 */
import { messageProblems } from './scripted-message-rules.ts';

/** The beta that lets `budget_tokens` exceed `max_tokens` (interleaved thinking). */
export const INTERLEAVED_THINKING_BETA = 'interleaved-thinking-2025-05-14';

// https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools: "The name of the tool. Must match
// the regex ^[a-zA-Z0-9_-]{1,64}$."
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The smallest thinking budget the API accepts (extended thinking: "The API rejects smaller values"). */
export const MIN_THINKING_BUDGET = 1024;

type Body = Record<string, unknown>;

const isObject = (value: unknown): value is Body =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `max_tokens` (Create a Message, https://platform.claude.com/docs/en/api/messages/create): required, an
 * integer; `0` is allowed (it pre-warms the prompt cache without generating).
 */
function maxTokensProblems(body: Body): string[] {
  if (body.max_tokens === undefined) return ['max_tokens: Field required'];
  const value = body.max_tokens;
  if (typeof value !== 'number' || !Number.isInteger(value))
    return ['max_tokens: Input should be a valid integer'];
  return value < 0 ? ['max_tokens: Input should be greater than or equal to 0'] : [];
}

/**
 * Custom tools (a `tools` entry without a server-tool `type`): a name of the documented pattern, unique in the
 * request (the API answers "tools: Tool names must be unique."), and an `input_schema` whose `type` is
 * `object` (define-tools; the API reference's `Tool.InputSchema`).
 */
function toolProblems(tools: unknown): string[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) return ['tools: Input should be a valid list'];
  const problems: string[] = [];
  const names = new Set<string>();
  let duplicate = false;
  tools.forEach((tool: unknown, i) => {
    if (!isObject(tool)) {
      problems.push(`tools.${i}: Input should be an object`);
      return;
    }
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') return; // a server tool
    const name = typeof tool.name === 'string' ? tool.name : '';
    if (!TOOL_NAME.test(name))
      problems.push(`tools.${i}.custom.name: String should match pattern '${TOOL_NAME.source}'`);
    if (names.has(name)) duplicate = true;
    names.add(name);
    const schema = tool.input_schema;
    if (!isObject(schema) || schema.type !== 'object')
      problems.push(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
  });
  if (duplicate) problems.push('tools: Tool names must be unique.');
  return problems;
}

/**
 * Extended thinking (https://platform.claude.com/docs/en/build-with-claude/extended-thinking): `budget_tokens`
 * at least 1024 and less than `max_tokens`, except with interleaved thinking, whose budget may exceed it; and
 * thinking cannot be combined with a `tool_choice` that forces tool use (`any` or `tool`, implement-tool-use).
 */
function thinkingProblems(body: Body, betas: readonly string[]): string[] {
  const thinking = body.thinking;
  if (!isObject(thinking) || thinking.type !== 'enabled') return [];
  const problems: string[] = [];
  const budget = thinking.budget_tokens;
  if (typeof budget !== 'number' || !Number.isInteger(budget))
    problems.push('thinking.enabled.budget_tokens: Input should be a valid integer');
  else if (budget < MIN_THINKING_BUDGET)
    problems.push(
      `thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_THINKING_BUDGET}`,
    );
  else if (
    typeof body.max_tokens === 'number' &&
    budget >= body.max_tokens &&
    !betas.includes(INTERLEAVED_THINKING_BETA)
  )
    problems.push('max_tokens: `max_tokens` must be greater than `thinking.budget_tokens`');
  const choice = isObject(body.tool_choice) ? body.tool_choice.type : undefined;
  if (choice === 'any' || choice === 'tool')
    problems.push('tool_choice: Thinking may not be enabled when tool_choice forces tool use.');
  return problems;
}

/**
 * Every rule the request breaks, each naming its field (none: the real API would accept it). `betas` are the
 * request's betas: the `anthropic-beta` header, or Bedrock's `anthropic_beta` body field.
 */
export function requestProblems(body: Body, betas: readonly string[] = []): string[] {
  return [
    ...maxTokensProblems(body),
    ...messageProblems(body.messages),
    ...toolProblems(body.tools),
    ...thinkingProblems(body, betas),
  ];
}

/** The betas a request asks for: the `anthropic-beta` header (comma-separated) and Bedrock's `anthropic_beta`. */
export function betasOf(header: string | string[] | undefined, body: Body): string[] {
  const fromHeader = (Array.isArray(header) ? header : [header ?? ''])
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
  const fromBody = Array.isArray(body.anthropic_beta)
    ? body.anthropic_beta.filter((value): value is string => typeof value === 'string')
    : [];
  return [...fromHeader, ...fromBody];
}
