/**
 * The `@aws-sdk/credential-providers` the Lambda bundles give the Bedrock client
 * (shared/runtime/aws/lambda-credential-providers.ts): its chain gives what the package's chain gives in Lambda's
 * environment (the execution role's variables), refuses as the Lambda provider does when one is missing, and a
 * Bedrock client resolving its credentials through it as its default resolver does signs with the role's keys
 * (a loopback server reads the signature).
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import * as sdkProviders from '@aws-sdk/credential-providers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as lambdaProviders from '../../shared/runtime/aws/lambda-credential-providers.ts';
import {
  LAMBDA_CREDENTIAL_VARIABLES,
  LambdaCredentialsError,
} from '../../shared/runtime/aws/lambda-credentials.ts';

const ROLE = {
  AWS_ACCESS_KEY_ID: 'ASIALAMBDAROLE0002',
  AWS_SECRET_ACCESS_KEY: 'lambda-role-secret',
  AWS_SESSION_TOKEN: 'lambda-role-session-token',
};

function setRoleEnvironment(except: string[] = []): void {
  for (const name of LAMBDA_CREDENTIAL_VARIABLES) {
    vi.stubEnv(name, except.includes(name) ? undefined : ROLE[name]);
  }
  vi.stubEnv('AWS_PROFILE', undefined);
}

afterEach(() => {
  vi.unstubAllEnvs();
});

/** The chain as the Bedrock client builds it from the module (@anthropic-ai/bedrock-sdk, core/auth.mjs). */
const bedrockChain = (providers: typeof lambdaProviders) =>
  providers.createCredentialChain(providers.fromEnv({}), providers.fromNodeProviderChain({}));

const keys = ({
  accessKeyId,
  secretAccessKey,
  sessionToken,
}: {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}) => ({
  accessKeyId,
  secretAccessKey,
  sessionToken,
});

describe("the Lambda bundles' @aws-sdk/credential-providers", () => {
  it("gives the package's chain's credentials in Lambda's environment", async () => {
    setRoleEnvironment();
    const ours = keys(await bedrockChain(lambdaProviders)());
    expect(ours).toEqual({
      accessKeyId: ROLE.AWS_ACCESS_KEY_ID,
      secretAccessKey: ROLE.AWS_SECRET_ACCESS_KEY,
      sessionToken: ROLE.AWS_SESSION_TOKEN,
    });
    expect(keys(await bedrockChain(sdkProviders as unknown as typeof lambdaProviders)())).toEqual(ours);
  });

  it('refuses with the Lambda provider’s error when the environment link finds no keys', async () => {
    setRoleEnvironment(['AWS_ACCESS_KEY_ID']);
    const failure = await bedrockChain(lambdaProviders)().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(LambdaCredentialsError);
    expect((failure as LambdaCredentialsError).missing).toEqual(['AWS_ACCESS_KEY_ID']);
  });

  it("takes keys without a session token from the environment link first, as the package's chain does", async () => {
    setRoleEnvironment(['AWS_SESSION_TOKEN']);
    const ours = keys(await bedrockChain(lambdaProviders)());
    expect(ours).toEqual({
      accessKeyId: ROLE.AWS_ACCESS_KEY_ID,
      secretAccessKey: ROLE.AWS_SECRET_ACCESS_KEY,
      sessionToken: undefined,
    });
    expect(keys(await bedrockChain(sdkProviders as unknown as typeof lambdaProviders)())).toEqual(ours);
  });

  it('stops at a link that fails without tryNextLink, and goes on after one that fails with it', async () => {
    const next = Object.assign(new Error('next'), { tryNextLink: true });
    const stop = new Error('stop');
    const credentials = { accessKeyId: 'A', secretAccessKey: 'S' };
    const fails = (error: Error) => () => Promise.reject(error);
    await expect(
      lambdaProviders.createCredentialChain(fails(next), () => Promise.resolve(credentials))(),
    ).resolves.toBe(credentials);
    await expect(
      lambdaProviders.createCredentialChain(fails(stop), () => Promise.resolve(credentials))(),
    ).rejects.toBe(stop);
    await expect(lambdaProviders.createCredentialChain(fails(next), fails(next))()).rejects.toBe(next);
  });

  it("signs a Bedrock client's request with the role's keys", async () => {
    setRoleEnvironment();
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((request, response) => {
      seen.push(request.headers);
      request.resume();
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
          content: [{ type: 'text', text: 'ok' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      );
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const client = new AnthropicBedrock({
        awsRegion: 'eu-central-1',
        apiKey: null,
        baseURL: `http://127.0.0.1:${port}`,
        maxRetries: 0,
        // What the client's default resolver does with the module, given ours.
        providerChainResolver: async () => bedrockChain(lambdaProviders),
      });
      await client.messages.create({
        model: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
        max_tokens: 1,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(seen).toHaveLength(1);
      expect(seen[0]!.authorization).toMatch(
        new RegExp(
          `^AWS4-HMAC-SHA256 Credential=${ROLE.AWS_ACCESS_KEY_ID}/\\d{8}/eu-central-1/bedrock/aws4_request`,
        ),
      );
      expect(seen[0]!['x-amz-security-token']).toBe(ROLE.AWS_SESSION_TOKEN);
    } finally {
      server.close();
    }
  });
});
