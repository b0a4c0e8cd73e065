/**
 * The job tools as the MCP server lists and calls them: each input schema as JSON Schema (draft-07, the input
 * side, as the SDK's `McpServer` converted a zod v4 schema), arguments checked against the zod schema with the
 * SDK's error wording, and results or refusals as tool results (isError) carrying the REST error body.
 */
import { type CallToolResult, ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, errorBody, mapDomainError } from '../api/errors.ts';
import type { JobCaller, JobsDeps } from '../jobs/index.ts';
import * as z from '../zod.ts';
import { JOB_TOOLS, type JobTool } from './tools.ts';

let listing: Tool[] | undefined;

/** tools/list: name, title, description, input schema and annotations of every job tool (built once). */
export function listedTools(): Tool[] {
  listing ??= JOB_TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.inputSchema, { target: 'draft-7', io: 'input' }) as Tool['inputSchema'],
    annotations: { readOnlyHint: tool.readOnly, openWorldHint: false },
    // No task augmentation: every tool answers at once.
    execution: { taskSupport: 'forbidden' },
  }));
  return listing;
}

/** tools/call: an unknown tool or invalid arguments is a tool error naming the field, as McpServer answered. */
export async function callJobTool(
  name: string,
  args: Record<string, unknown> | undefined,
  deps: JobsDeps,
  caller: JobCaller,
): Promise<CallToolResult> {
  const tool = JOB_TOOLS.find((candidate) => candidate.name === name) as JobTool | undefined;
  if (!tool) return protocolError(`Tool ${name} not found`);
  const parsed = await tool.inputSchema.safeParseAsync(args ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) =>
      issue.path.length === 0 ? issue.message : `${issue.message} at ${dotPath(issue.path)}`,
    );
    return protocolError(`Input validation error: Invalid arguments for tool ${name}: ${issues.join('\n')}`);
  }
  try {
    return toolResult(await tool.run(deps, caller, parsed.data));
  } catch (error) {
    return toolError(error);
  }
}

/** `tools[0].name`: the SDK's rendering of an issue path. */
const dotPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((text, segment, index) => {
    if (index === 0) return String(segment);
    return typeof segment === 'number' ? `${text}[${segment}]` : `${text}.${String(segment)}`;
  }, '');

/** A refusal before the tool runs, worded as the SDK's McpError (`MCP error -32602: ...`), as a tool error. */
const protocolError = (message: string): CallToolResult => ({
  content: [{ type: 'text', text: new McpError(ErrorCode.InvalidParams, message).message }],
  isError: true,
});

/** The REST answer as structured content, and the same JSON as text for clients that read only text. */
const toolResult = (result: Record<string, unknown>): CallToolResult => ({
  structuredContent: result,
  content: [{ type: 'text', text: JSON.stringify(result) }],
});

/**
 * A refusal as a tool error carrying the REST error body (`{ error: { code, message, fields } }`): the field
 * at fault is named, and a foreign job id is the same `not_found` as a missing one. Anything unexpected is
 * logged and answered without its message, as the REST API does.
 */
function toolError(error: unknown): CallToolResult {
  const known = error instanceof ApiError ? error : mapDomainError(error);
  if (!known) {
    const described = error instanceof Error ? { name: error.name, message: error.message } : { error };
    console.error(JSON.stringify({ level: 'ERROR', message: 'unhandled MCP tool error', error: described }));
  }
  const body = known
    ? errorBody(known.code, known.message, known.fields)
    : errorBody('internal', 'internal error');
  const fields = body.error.fields?.map((field) => ` (${field.path}: ${field.message})`).join('') ?? '';
  return {
    isError: true,
    structuredContent: body,
    content: [{ type: 'text', text: `${body.error.code}: ${body.error.message}${fields}` }],
  };
}
