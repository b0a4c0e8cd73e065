/**
 * Reading a Messages-API request body and checking a turn's `expect` against it.
 */

import { cutText } from '../core/byte-caps.ts';
import { isCacheScopeText } from './anthropic-mapping.ts';
import type { ScriptedExpect } from './scripted-fixture.ts';

/** The parts of a request body the scripted server reads; everything else is recorded as is. */
export type WireBlock = {
  type?: string;
  text?: string;
  id?: string;
  name?: string;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
};
export type WireMessage = { role?: string; content?: string | WireBlock[] };
export type WireRequest = {
  model?: string;
  system?: string | WireBlock[];
  messages?: WireMessage[];
  tools?: { name?: string }[];
  stream?: boolean;
};

function blocksOf(message: WireMessage): WireBlock[] {
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  return Array.isArray(message.content) ? message.content : [];
}

/** Text of a tool_result's content (a string, or text blocks). */
export function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: WireBlock) => (block?.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .join('');
}

/** The model turn a request asks for: the number of assistant messages it holds. */
export function turnIndexOf(request: WireRequest): number {
  return (request.messages ?? []).filter((message) => message?.role === 'assistant').length;
}

export function systemText(request: WireRequest): string {
  if (typeof request.system === 'string') return request.system;
  // The owner's cache-scope block is not the prompt: a fixture recorded by one owner replays for any other.
  return (request.system ?? [])
    .map((block) => block.text ?? '')
    .filter((text) => !isCacheScopeText(text))
    .join('\n');
}

function lastUserText(request: WireRequest): string {
  const last = (request.messages ?? []).findLast((message) => message?.role === 'user');
  if (!last) return '';
  return blocksOf(last)
    .map((block) => (block.type === 'tool_result' ? toolResultText(block.content) : (block.text ?? '')))
    .join('\n');
}

/** The most recent tool_result for a tool_use id, or for any call of a tool name. */
function findToolResult(
  request: WireRequest,
  by: { toolUseId?: string | undefined; toolName?: string | undefined },
) {
  const messages = request.messages ?? [];
  const ids = new Set<string>();
  if (by.toolUseId !== undefined) ids.add(by.toolUseId);
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      if (block.type === 'tool_use' && block.name === by.toolName && block.id) ids.add(block.id);
    }
  }
  const results = messages
    .flatMap(blocksOf)
    .filter((b) => b.type === 'tool_result' && ids.has(b.tool_use_id ?? ''));
  return results.at(-1);
}

/** The text of the first user message (text blocks only: the task the run was given). */
export function firstUserText(request: WireRequest): string {
  const first = (request.messages ?? []).find((message) => message?.role === 'user');
  if (!first) return '';
  return blocksOf(first)
    .map((block) => (block.type === 'text' ? (block.text ?? '') : ''))
    .join('\n');
}

const clip = (text: string) => JSON.stringify(text.length > 80 ? `${cutText(text, 77)}...` : text);

/**
 * The task text with what differs on every run masked: instants (ISO 8601 date-times) and run ids. The
 * runtime writes when and how the run was started into the first user message.
 */
export const stable = (text: string) =>
  text
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?/g, '<time>')
    .replace(/\brun_[A-Za-z0-9]+/g, '<run>');

/** Where a replayed request drifted from the recorded one: one problem per changed field. */
function driftOf(recorded: NonNullable<ScriptedExpect['recorded']>, request: WireRequest): string[] {
  const drift: string[] = [];
  const changed = (field: string, was: string, now: string) =>
    drift.push(`drift: ${field} changed since the recording (recorded ${clip(was)}, now ${clip(now)})`);
  if (recorded.model !== undefined && request.model !== recorded.model)
    changed('model', recorded.model, request.model ?? '');
  if (recorded.system !== undefined && systemText(request) !== recorded.system)
    changed('system', recorded.system, systemText(request));
  if (recorded.firstUser !== undefined && stable(firstUserText(request)) !== stable(recorded.firstUser))
    changed('firstUser', recorded.firstUser, firstUserText(request));
  if (recorded.tools !== undefined) {
    const was = [...recorded.tools].sort().join(', ');
    const now = (request.tools ?? [])
      .map((tool) => tool?.name ?? '')
      .sort()
      .join(', ');
    if (was !== now) changed('tools', was, now);
  }
  return drift;
}

const list = (names: Iterable<string>) => `[${[...names].join(', ')}]`;

/** What differs between the request and the expectation; empty when it matches. */
export function checkExpectations(expect: ScriptedExpect | undefined, request: WireRequest): string[] {
  if (!expect) return [];
  const problems: string[] = expect.recorded ? driftOf(expect.recorded, request) : [];
  const offered = new Set((request.tools ?? []).map((tool) => tool?.name ?? ''));
  if (expect.tools) {
    const wanted = new Set(expect.tools);
    const same = wanted.size === offered.size && [...wanted].every((name) => offered.has(name));
    if (!same) problems.push(`tools: expected ${list([...wanted].sort())}, got ${list([...offered].sort())}`);
  }
  const missing = (expect.toolsInclude ?? []).filter((name) => !offered.has(name));
  if (missing.length > 0) problems.push(`toolsInclude: not offered ${list(missing)}`);
  const present = (expect.toolsExclude ?? []).filter((name) => offered.has(name));
  if (present.length > 0) problems.push(`toolsExclude: offered ${list(present)}`);
  if (expect.model !== undefined && request.model !== expect.model) {
    problems.push(`model: expected "${expect.model}", got "${request.model}"`);
  }
  if (expect.systemContains !== undefined && !systemText(request).includes(expect.systemContains)) {
    problems.push(`systemContains: system prompt lacks "${expect.systemContains}"`);
  }
  if (expect.lastUserContains !== undefined && !lastUserText(request).includes(expect.lastUserContains)) {
    problems.push(`lastUserContains: last user message lacks "${expect.lastUserContains}"`);
  }
  for (const wanted of expect.toolResults ?? []) {
    const label = wanted.toolUseId !== undefined ? `tool_use ${wanted.toolUseId}` : `tool ${wanted.toolName}`;
    const result = findToolResult(request, wanted);
    if (!result) {
      problems.push(`toolResults: no tool_result for ${label}`);
      continue;
    }
    const text = toolResultText(result.content);
    if (wanted.contains !== undefined && !text.includes(wanted.contains)) {
      problems.push(
        `toolResults: result for ${label} lacks "${wanted.contains}" (got ${JSON.stringify(text)})`,
      );
    }
    if (wanted.isError !== undefined && (result.is_error ?? false) !== wanted.isError) {
      problems.push(
        `toolResults: result for ${label} has is_error ${result.is_error ?? false}, expected ${wanted.isError}`,
      );
    }
  }
  return problems;
}
