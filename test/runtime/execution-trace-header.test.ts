/**
 * A run started from a Lambda function (Api, the trigger and jobs functions) is one X-Ray trace with the
 * invocation that started it, not a trace of its own: the AWS SDK sends the invocation's trace ID
 * (`_X_AMZN_TRACE_ID`, set by Lambda: https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime)
 * as the `X-Amzn-Trace-Id` header of StartExecution, and Step Functions continues the trace it is passed
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html, `traceHeader`:
 * "all Amazon Web Services services use the X-Amzn-Trace-Id header from the HTTP request"). `wf cost` counts one
 * trace per run on this (shared/cost/run-cost.ts, `xrayTraces`); this pins the SDK half against a loopback
 * server, through the product's own StartExecution (shared/runtime/executions-sfn.ts).
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SFNClient } from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sfnExecutions } from '../../shared/runtime/executions-sfn.ts';

const STATE_MACHINE = 'arn:aws:states:us-east-1:123456789012:stateMachine:Runs';
const TRACE = 'Root=1-67891233-abcdef012345678912345678;Parent=463ac35c9f6413ad;Sampled=1';

async function startThroughLoopback(): Promise<IncomingHttpHeaders> {
  let seen: IncomingHttpHeaders | undefined;
  const server = createServer((request, response) => {
    seen = request.headers;
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify({ executionArn: `${STATE_MACHINE}:run_a`, startDate: 1_700_000_000 }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const client = new SFNClient({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    await sfnExecutions(client, STATE_MACHINE).start('run_a', {
      runId: 'run_a',
      turn: 0,
      segmentStartTurn: 0,
    });
    return seen!;
  } finally {
    server.close();
  }
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('StartExecution from a Lambda function', () => {
  it("carries the invocation's X-Ray trace header, so the execution joins that trace", async () => {
    // Prepare: the variables Lambda sets for an invocation with active tracing.
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'Api');
    vi.stubEnv('_X_AMZN_TRACE_ID', TRACE);

    // Act
    const headers = await startThroughLoopback();

    // Assess
    expect(headers['x-amzn-trace-id']).toBe(TRACE);
  });

  it('carries none outside Lambda (the local stack, the CLI)', async () => {
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', undefined);
    vi.stubEnv('_X_AMZN_TRACE_ID', TRACE);

    expect((await startThroughLoopback())['x-amzn-trace-id']).toBeUndefined();
  });
});
