/**
 * The local stack's SDK clients of its Step Functions endpoint, each configured as the functions configure
 * theirs on AWS (shared/runtime/aws/): task-token answers with one attempt (the port retries throttling itself,
 * approvals.ts), starts and stops with the SDK's standard retries (executions.ts), which send a request again
 * after a transient network error such as a reset connection
 * (https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html). StartExecution sent again with
 * the same name and input answers the execution already started
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html), as the local
 * endpoint does (local-step-functions.ts). With one attempt for starts too, a keep-alive socket the endpoint
 * closed as it was reused failed a run's start with a 500 under load (`npm run bench:load`,
 * `TimeoutError: read ECONNRESET`).
 */
import { SFNClient } from '@aws-sdk/client-sfn';
import { type AwsCallSink, recordAwsCalls } from '../runtime/aws-call-recorder.ts';

const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export type LocalSfnClients = { answers: SFNClient; executions: SFNClient };

export function localSfnClients(endpointUrl: string, awsCalls?: AwsCallSink): LocalSfnClients {
  const client = (config: { maxAttempts?: number }) => {
    const sdk = new SFNClient({
      endpoint: endpointUrl,
      region: 'local',
      credentials: CREDENTIALS,
      ...config,
    });
    if (awsCalls) recordAwsCalls(sdk, awsCalls);
    return sdk;
  };
  return { answers: client({ maxAttempts: 1 }), executions: client({}) };
}
