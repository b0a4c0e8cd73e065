/** MCP test support: the official MCP client connected to a local stack's `/mcp` with a client's key. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Connects (initialize handshake) to `url` sending `headers` on every request. */
export async function connectMcp(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'wf-test-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Calls tool `name` and answers its result (tool errors included: `isError`). */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the tool answered.
): Promise<CallToolResult & { structuredContent?: any }> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a tool result's first content block. */
export const textOf = (result: CallToolResult): string => {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
};
