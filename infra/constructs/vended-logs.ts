/**
 * Log group names under `/aws/vendedlogs/`, for the groups AWS services deliver to (state machine execution
 * logs, HTTP API access logs). Turning on such logging makes the service add the group to the account's one
 * CloudWatch Logs resource policy, limited to 5120 characters; groups under `/aws/vendedlogs/` do not need an
 * entry of their own (https://docs.aws.amazon.com/step-functions/latest/dg/bp-cwl.html). An HTTP API stage's
 * access logging needs `logs:CreateLogDelivery` and `logs:PutResourcePolicy`
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-logging.html): it is one of the log
 * deliveries for which AWS "creates or changes the resource policies associated with the log group receiving the
 * logs" (https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/AWS-logs-infrastructure-CWL.html), the same
 * mechanism the Step Functions page describes.
 */
import { Aws, Fn, Names } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/** The prefix that keeps a delivered log group out of the account's resource policy. */
export const VENDED_LOGS_ROOT = '/aws/vendedlogs/';

/**
 * `/aws/vendedlogs/<service>/<stack>-<path><hash>-<stack uuid>`. The stack name and construct path keep two
 * stacks (or two groups of one stack) in one account apart; the stack's own UUID keeps a stack re-created under
 * the same name from colliding with a group the old one retained.
 */
export function vendedLogGroupNameFor(scope: Construct, service: string): string {
  if (!/^[a-z0-9-]+$/.test(service))
    throw new Error(`vendedLogGroupNameFor: service '${service}' must be lower-case letters, digits, '-'.`);
  const unique = Names.uniqueResourceName(scope, {
    maxLength: 200,
    separator: '-',
    allowedSpecialCharacters: '-_',
  });
  const stackUuid = Fn.select(2, Fn.split('/', Aws.STACK_ID));
  return Fn.join('', [`${VENDED_LOGS_ROOT}${service}/`, unique, '-', stackUuid]);
}
