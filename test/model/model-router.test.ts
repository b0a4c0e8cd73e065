/** Model sources: Bedrock in the Lambda's region with its role's credentials, and the scripted server through either SDK. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ModelConfigError } from '../../shared/model/errors.ts';
import { turnDeps } from '../../shared/runtime/aws/turn.ts';
import { bedrockSourceFrom, modelFor } from '../../shared/runtime/model-router.ts';
import { BEDROCK_MODEL, modelRequest, scripted } from './helpers.ts';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('Function: bedrockSourceFrom', () => {
  it("takes the region from the Lambda's AWS_REGION", () => {
    expect(bedrockSourceFrom({ AWS_REGION: 'eu-central-1' })).toEqual({
      kind: 'bedrock',
      region: 'eu-central-1',
    });
  });

  it.each([{}, { AWS_REGION: '' }])('fails clearly without a region (%j)', (env) => {
    expect(() => bedrockSourceFrom(env)).toThrow(
      new ModelConfigError(
        'AWS_REGION is not set: the turn function cannot tell which Bedrock region to call',
      ),
    );
  });
});

describe('Function: modelFor', () => {
  it('speaks Bedrock to the scripted server when asked, selecting the fixture by workflow', async () => {
    // Prepare
    const server = await scripted([
      { name: 'a', turns: [{ text: 'from a' }] },
      { name: 'b', turns: [{ text: 'from b' }] },
    ]);
    const model = modelFor({ kind: 'scripted', baseURL: server.url, via: 'bedrock' });

    // Act
    const response = await model.call(modelRequest({ model: BEDROCK_MODEL, workflow: 'b' }));

    // Assess
    expect(response.content).toEqual([{ type: 'text', text: 'from b' }]);
    expect(server.requests[0]?.path).toBe(`/model/${BEDROCK_MODEL}/invoke-with-response-stream`);
  });
});

describe('Function: turnDeps (provider bedrock)', () => {
  it("answers turns through Bedrock in the function's region, signed with the role's credentials", async () => {
    // Prepare: the environment Lambda and the CDK give the turn function; the endpoint is the scripted server.
    const server = await scripted({ turns: [{ text: 'hello from Bedrock' }] });
    vi.stubEnv('WF_TABLE_NAME', 'wf-unused');
    vi.stubEnv('WF_MODEL_PROVIDER', 'bedrock');
    vi.stubEnv('AWS_REGION', 'eu-central-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDLAMBDAROLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'role-secret');
    vi.stubEnv('AWS_SESSION_TOKEN', 'role-session');
    vi.stubEnv('ANTHROPIC_BEDROCK_BASE_URL', server.url);

    // Act
    const deps = await turnDeps();
    const response = await deps.model.call(modelRequest({ model: BEDROCK_MODEL }));

    // Assess
    expect(response.content).toEqual([{ type: 'text', text: 'hello from Bedrock' }]);
    expect(server.failures).toEqual([]);
    const headers = server.requests[0]?.headers ?? {};
    expect(headers.authorization).toMatch(/\/eu-central-1\/bedrock\/aws4_request,/);
    expect(headers['x-amz-security-token']).toBe('[redacted]');
  });
});
