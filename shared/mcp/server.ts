/**
 * The jobs MCP server (docs/jobs.md, "MCP"): the tools of tools.ts over Streamable HTTP, stateless (a server
 * and a transport per request, no session id) with JSON responses (no SSE stream). It is the API's
 * `McpHandler` port: the local stack passes it to the API app; on AWS it is the MCP function (functions/mcp.ts),
 * so the Api function's bundle carries no MCP SDK.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, errorBody, mapDomainError } from '../api/errors.ts';
import type { JobCaller, JobsDeps } from '../jobs/index.ts';
import { JOB_TOOLS, type JobTool } from './tools.ts';

export const MCP_SERVER_INFO = { name: 'wf-runtime-jobs', version: '1.0.0' } as const;

/** Answers one MCP request of `caller` (already authenticated) with a fresh stateless server. */
export async function handleMcpRequest(
  request: Request,
  deps: JobsDeps,
  caller: JobCaller,
): Promise<Response> {
  const server = new McpServer(MCP_SERVER_INFO, { capabilities: { tools: {} } });
  for (const tool of JOB_TOOLS) registerJobTool(server, tool as JobTool, deps, caller);
  // Stateless: no `sessionIdGenerator` (the SDK's stateless mode, no Mcp-Session-Id); each request is answered
  // on its own, by whichever Lambda gets it. JSON responses: every tool answers at once, nothing streams.
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}

function registerJobTool(server: McpServer, tool: JobTool, deps: JobsDeps, caller: JobCaller): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: { readOnlyHint: tool.readOnly, openWorldHint: false },
    },
    async (args: Record<string, unknown>): Promise<CallToolResult> => {
      try {
        return toolResult(await tool.run(deps, caller, args));
      } catch (error) {
        return toolError(error);
      }
    },
  );
}

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
