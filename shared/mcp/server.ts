/**
 * The jobs MCP server (docs/jobs.md, "MCP"): the tools of tools.ts over Streamable HTTP, stateless (a server
 * and a transport per request, no session id) with JSON responses (no SSE stream). It is the API's
 * `McpHandler` port: the local stack passes it to the API app; on AWS it is the MCP function (functions/mcp.ts),
 * so the Api function's bundle carries no MCP SDK.
 *
 * Built on the SDK's low-level `Server`, not `McpServer`: `McpServer` bundles the SDK's zod v3 compatibility
 * layer and zod-to-json-schema (~100 KB of the Mcp bundle) to accept zod v3 schemas we never pass. The
 * listing and the argument checks (tool-calls.ts) answer what `McpServer` answered for our zod v4 schemas.
 *
 * The server never elicits: it is given NO_ELICITATION_VALIDATOR, so the SDK builds no Ajv instance (with its
 * formats) per request, and the Mcp function's bundle carries no Ajv (ajv-not-bundled.ts).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { JobCaller, JobsDeps } from '../jobs/index.ts';
import { callJobTool, listedTools } from './tool-calls.ts';

export const MCP_SERVER_INFO = { name: 'wf-runtime-jobs', version: '1.0.0' } as const;

/**
 * The SDK's `Server` validates with its `jsonSchemaValidator` only an elicitation's answer (`elicitInput`),
 * and constructs an Ajv one per server when given none. We never elicit, so this one refuses: an elicitation
 * would fail with an error instead of taking an unchecked answer.
 */
export const NO_ELICITATION_VALIDATOR: jsonSchemaValidator = {
  getValidator() {
    throw new Error('the jobs MCP server never elicits, so it validates no elicitation answer');
  },
};

/** Answers one MCP request of `caller` (already authenticated) with a fresh stateless server. */
export async function handleMcpRequest(
  request: Request,
  deps: JobsDeps,
  caller: JobCaller,
): Promise<Response> {
  // listChanged as McpServer declared it: clients saw it in every initialize answer so far.
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: true } },
    jsonSchemaValidator: NO_ELICITATION_VALIDATOR,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools() }));
  server.setRequestHandler(CallToolRequestSchema, (call) =>
    callJobTool(call.params.name, call.params.arguments, deps, caller),
  );
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
