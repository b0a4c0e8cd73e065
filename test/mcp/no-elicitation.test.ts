/**
 * The jobs MCP server's JSON Schema validator (shared/mcp/server.ts): the SDK's `Server` uses it only to check
 * an elicitation's answer, and ours refuses, so the server builds no Ajv and the Mcp bundle carries none. An
 * elicitation, were one ever sent, fails instead of taking an unchecked answer. Official client and server over
 * the SDK's in-memory transport.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { MCP_SERVER_INFO, NO_ELICITATION_VALIDATOR } from '../../shared/mcp/server.ts';

describe('MCP server: no elicitation', () => {
  it('refuses to validate any schema', () => {
    expect(() => NO_ELICITATION_VALIDATOR.getValidator({ type: 'object' })).toThrow(/never elicits/);
  });

  it('fails an elicitation the client accepted instead of taking its answer unchecked', async () => {
    const server = new Server(MCP_SERVER_INFO, {
      capabilities: {},
      jsonSchemaValidator: NO_ELICITATION_VALIDATOR,
    });
    const client = new Client(
      { name: 'wf-test-client', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'x' } }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      await expect(
        server.elicitInput({
          message: 'name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        }),
      ).rejects.toThrow(/never elicits/);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
