/**
 * The credential provider the Lambda bundles take in place of the SDK's default chain
 * (shared/runtime/aws/lambda-credentials.ts): it returns the execution role's credentials from the variables
 * Lambda sets, refuses clearly when one is missing, and a real SDK client built with it signs with them
 * (a loopback server reads the signature).
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { defaultProvider as sdkDefaultChain } from '@aws-sdk/credential-provider-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  defaultProvider,
  LAMBDA_CREDENTIAL_VARIABLES,
  LambdaCredentialsError,
} from '../../shared/runtime/aws/lambda-credentials.ts';

const ROLE = {
  AWS_ACCESS_KEY_ID: 'ASIALAMBDAROLE0001',
  AWS_SECRET_ACCESS_KEY: 'lambda-role-secret',
  AWS_SESSION_TOKEN: 'lambda-role-session-token',
};

function setRoleEnvironment(except: string[] = []): void {
  for (const name of LAMBDA_CREDENTIAL_VARIABLES) {
    vi.stubEnv(name, except.includes(name) ? undefined : ROLE[name]);
  }
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('Lambda credentials (the bundles’ default credential provider)', () => {
  it("returns the execution role's credentials from the environment", async () => {
    setRoleEnvironment();
    const credentials = await defaultProvider()();
    expect(credentials).toMatchObject({
      accessKeyId: ROLE.AWS_ACCESS_KEY_ID,
      secretAccessKey: ROLE.AWS_SECRET_ACCESS_KEY,
      sessionToken: ROLE.AWS_SESSION_TOKEN,
    });
  });

  it("gives what the SDK's whole default chain gives in Lambda's environment: the chain tries the environment first", async () => {
    // Lambda's environment: the role's variables, no AWS_PROFILE. A shared credentials file with other keys
    // (which Lambda does not have) shows the chain does not get past its first link.
    setRoleEnvironment();
    vi.stubEnv('AWS_PROFILE', undefined);
    const dir = mkdtempSync(join(tmpdir(), 'wf-credentials-'));
    try {
      const file = join(dir, 'credentials');
      writeFileSync(file, '[default]\naws_access_key_id = AKIAFROMFILE\naws_secret_access_key = from-file\n');
      vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', file);
      vi.stubEnv('AWS_CONFIG_FILE', join(dir, 'config'));
      vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
      const sdkChainCall = sdkDefaultChain();
      const keys = ({
        accessKeyId,
        secretAccessKey,
        sessionToken,
      }: Awaited<ReturnType<typeof sdkChainCall>>) => ({
        accessKeyId,
        secretAccessKey,
        sessionToken,
      });
      expect(keys(await sdkChainCall())).toEqual(keys(await defaultProvider()()));
      expect(keys(await defaultProvider()())).toEqual({
        accessKeyId: ROLE.AWS_ACCESS_KEY_ID,
        secretAccessKey: ROLE.AWS_SECRET_ACCESS_KEY,
        sessionToken: ROLE.AWS_SESSION_TOKEN,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the variables on each call, as the SDK re-resolves identities', async () => {
    setRoleEnvironment();
    const provider = defaultProvider();
    await provider();
    vi.stubEnv('AWS_SESSION_TOKEN', 'rotated-token');
    expect((await provider()).sessionToken).toBe('rotated-token');
  });

  it.each([
    [['AWS_SESSION_TOKEN']],
    [['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']],
    [[...LAMBDA_CREDENTIAL_VARIABLES]],
  ])('refuses when %j is missing, naming exactly the missing variables', async (missing) => {
    setRoleEnvironment(missing);
    const failure = await defaultProvider()().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(LambdaCredentialsError);
    expect((failure as LambdaCredentialsError).missing).toEqual(missing);
    expect((failure as Error).message).toContain(
      `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set`,
    );
  });

  it('treats an empty variable as missing', async () => {
    setRoleEnvironment();
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', '');
    await expect(defaultProvider()()).rejects.toThrow(/AWS_SECRET_ACCESS_KEY is not set/);
  });

  it('signs a real SDK client’s requests with those credentials (explicit region and endpoint kept)', async () => {
    setRoleEnvironment();
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((request, response) => {
      seen.push(request.headers);
      request.resume();
      response.setHeader('content-type', 'application/x-amz-json-1.0');
      response.end('{"TableNames":[]}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      // The bundles alias @aws-sdk/credential-provider-node to this module, so every client's runtime config
      // gets it as `credentialDefaultProvider`; here it is passed the same way.
      const client = new DynamoDBClient({
        region: 'eu-central-1',
        endpoint: `http://127.0.0.1:${port}`,
        credentialDefaultProvider: defaultProvider,
        maxAttempts: 1,
      });
      await client.send(new ListTablesCommand({}));
      client.destroy();
      expect(seen).toHaveLength(1);
      expect(seen[0]!.authorization).toMatch(
        new RegExp(
          `^AWS4-HMAC-SHA256 Credential=${ROLE.AWS_ACCESS_KEY_ID}/\\d{8}/eu-central-1/dynamodb/aws4_request`,
        ),
      );
      expect(seen[0]!['x-amz-security-token']).toBe(ROLE.AWS_SESSION_TOKEN);
    } finally {
      server.close();
    }
  });

  it('makes an SDK call fail with the missing variables named, sending nothing', async () => {
    setRoleEnvironment(['AWS_ACCESS_KEY_ID']);
    let requests = 0;
    const server = createServer((_request, response) => {
      requests += 1;
      response.end('{}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const client = new DynamoDBClient({
        region: 'eu-central-1',
        endpoint: `http://127.0.0.1:${port}`,
        credentialDefaultProvider: defaultProvider,
        maxAttempts: 1,
      });
      await expect(client.send(new ListTablesCommand({}))).rejects.toThrow(/AWS_ACCESS_KEY_ID is not set/);
      client.destroy();
      expect(requests).toBe(0);
    } finally {
      server.close();
    }
  });
});
