/**
 * The Lambda bundles take a throwing stub for `@smithy/core/event-streams`
 * (shared/runtime/bundle-shims/no-event-streams.ts). The AWS SDK's protocols load that module only for an
 * operation whose input or output has an event-stream member (`HttpProtocol.loadEventStreamCapability`, called
 * from `RpcProtocol` and `HttpBindingProtocol` when `getEventStreamMember()` names one). This checks, offline,
 * that no command of any AWS SDK client the runtime depends on has one, so the stub is never reached.
 * test/infra/lazy-wrappers.test.ts checks that the bundles hold the stub, not the module, and no other client,
 * except a Bedrock deployment's Turn, whose Bedrock client imports the module itself.
 */
import { NormalizedSchema } from '@smithy/core/schema';
import { describe, expect, it } from 'vitest';
import { runtimeClients } from '../support/lambda-bundle.ts';

/** The commands of `client` whose operation's input or output has an event-stream member. */
async function commandsWithEventStreams(client: string): Promise<{ commands: number; streaming: string[] }> {
  const exports = (await import(client)) as Record<string, unknown>;
  let commands = 0;
  const streaming: string[] = [];
  for (const [name, value] of Object.entries(exports)) {
    if (!name.endsWith('Command') || typeof value !== 'function') continue;
    // A command's operation schema: [kind, namespace, name, traits, input, output].
    const operation = (
      new (value as new (input: object) => { schema?: unknown[] })({}) as { schema?: unknown[] }
    ).schema;
    if (!operation) continue;
    commands++;
    for (const side of [operation[4], operation[5]]) {
      const schema = NormalizedSchema.of(side as never);
      if (schema.isStructSchema() && schema.getEventStreamMember()) streaming.push(name);
    }
  }
  return { commands, streaming };
}

describe('AWS SDK event streams in the Lambda bundles', () => {
  it('no command of the AWS SDK clients the runtime depends on sends or reads an event stream', async () => {
    const clients = runtimeClients();
    expect(clients).toContain('@aws-sdk/client-dynamodb');
    for (const client of clients) {
      const { commands, streaming } = await commandsWithEventStreams(client);
      expect(commands, client).toBeGreaterThan(5);
      expect(streaming, client).toEqual([]);
    }
  }, 60_000);

  it('the check sees an event stream where a client has one (Bedrock Runtime, which the Bedrock client uses)', async () => {
    const { streaming } = await commandsWithEventStreams('@aws-sdk/client-bedrock-runtime');
    expect(streaming).toContain('InvokeModelWithResponseStreamCommand');
  });
});
