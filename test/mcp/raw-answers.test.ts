/**
 * The MCP server's raw JSON-RPC answers (initialize, tools/list, refused tool calls, ping, unknown methods)
 * are byte-for-byte what the SDK's `McpServer` answered before the server moved to the low-level `Server`
 * (fixtures/mcp-answers-sdk-1.32.2-mcpserver.json was recorded from the `McpServer` version). None of these
 * answers reaches the store, so the handler runs without deps.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JobCaller, JobsDeps } from '../../shared/jobs/index.ts';
import { handleMcpRequest } from '../../shared/mcp/server.ts';

const recorded = JSON.parse(
  readFileSync(new URL('./fixtures/mcp-answers-sdk-1.32.2-mcpserver.json', import.meta.url), 'utf8'),
);

const caller = { clientId: 'c', owner: 'o' } as unknown as JobCaller;
const noDeps = {} as JobsDeps;

async function rpc(body: unknown) {
  const response = await handleMcpRequest(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify(body),
    }),
    noDeps,
    caller,
  );
  const text = await response.text();
  const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== 'date'));
  return { status: response.status, headers, body: text === '' ? '' : JSON.parse(text) };
}

const call = (id: number, name: string, args?: unknown) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: args === undefined ? { name } : { name, arguments: args },
});

const requests: Record<string, unknown> = {
  initialize: {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  },
  list: { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
  badArgs: call(3, 'get_agent_job', { jobId: 5 }),
  noArgs: call(4, 'submit_agent_job'),
  unknownTool: call(5, 'nope', {}),
  extraArg: call(6, 'get_agent_job', { jobId: 'x', zzz: 1 }),
  ping: { jsonrpc: '2.0', id: 7, method: 'ping' },
  notification: { jsonrpc: '2.0', method: 'notifications/initialized' },
  badMethod: { jsonrpc: '2.0', id: 8, method: 'resources/list' },
};

describe('MCP server: the answers McpServer gave, unchanged', () => {
  for (const [name, request] of Object.entries(requests)) {
    it(`answers ${name} as recorded`, async () => {
      expect(await rpc(request)).toEqual(recorded[name]);
    });
  }
});
