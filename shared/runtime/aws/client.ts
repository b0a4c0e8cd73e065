/** How every AWS SDK client of the compositions is built: traced (X-Ray) and, in tests, recorded. */
import { recordAwsCallsFromEnv as recorded } from '../aws-call-recorder.ts';
import { tracedClient } from '../tracing.ts';

/**
 * Every SDK client built by the compositions: traced (X-Ray), and recorded for the offline IAM check
 * (test/iam) when WF_AWS_CALL_LOG is set (tests only).
 */
export const awsClient = <C>(client: C): C => recorded(tracedClient(client));
