/**
 * AWS endpoints no workflow can allow-list: the hosts of AWS services that act on the account with IAM, in
 * every form AWS documents for them. Defence in depth: a request the model directs must never reach the
 * account's own AWS APIs (a server-injected credential could sign it). Customer-facing endpoints under
 * amazonaws.com (API Gateway `*.execute-api…`, ELB `*.elb…`, S3 buckets, AppSync, OpenSearch domains, RDS
 * databases) stay reachable; they are ordinary destinations checked by address.
 */

/** Service codes, as AWS spells them in endpoint host names (`sts` in `sts.us-east-1.amazonaws.com`). */
export const BLOCKED_AWS_SERVICES: ReadonlySet<string> = new Set([
  'sts',
  'iam',
  'sso',
  'portal.sso',
  'oidc',
  'identitystore',
  'signin',
  'organizations',
  'account',
  'secretsmanager',
  'kms',
  'ssm',
  'ssmmessages',
  'ec2messages',
  'ec2',
  'states',
  'sync-states',
  'lambda',
  'dynamodb',
  'streams.dynamodb',
  'sqs',
  'sns',
  'events',
  'scheduler',
  'logs',
  'monitoring',
  'xray',
  'cloudformation',
  'cloudcontrolapi',
  'cloudtrail',
  'config',
  'apigateway',
  'cognito-identity',
  'cognito-idp',
  'ecr',
  'api.ecr',
  'ecs',
  'eks',
  'rds',
  'rds-data',
  's3-control',
  'bedrock',
  'bedrock-runtime',
  'bedrock-agent',
  'bedrock-agent-runtime',
  'route53',
  'acm',
  'ram',
  'tagging',
  'servicequotas',
  'appconfig',
  'appconfigdata',
  'codebuild',
  'codepipeline',
  'kinesis',
  'firehose',
  'athena',
  'glue',
  // Also acting on the account with IAM, each at `<code>.<region>.amazonaws.com` (the AWS General Reference's
  // service endpoints pages, https://docs.aws.amazon.com/general/latest/gr/aws-service-information.html):
  // agents and their control plane, CloudTrail Lake ingestion, load balancers' and Auto Scaling's APIs (their
  // customer endpoints are `*.elb…`, not these), EventBridge Pipes, Aurora DSQL's control plane, IAM Access
  // Analyzer, AWS Backup, Security Hub, GuardDuty, WAF.
  'bedrock-agentcore',
  'bedrock-agentcore-control',
  'cloudtrail-data',
  'elasticloadbalancing',
  'autoscaling',
  'pipes',
  'dsql',
  'access-analyzer',
  'backup',
  'securityhub',
  'guardduty',
  'wafv2',
]);

/**
 * Other labels that name a blocked service in its hosts:
 * - `ddb`, `search-ddb`, `search-dynamodb`: DynamoDB's account-based endpoints
 *   `<account-id>.ddb.<region>.amazonaws.com`, the SDKs' default since 2024
 *   (https://docs.aws.amazon.com/general/latest/gr/ddb.html,
 *   https://docs.aws.amazon.com/sdk-for-javascript/v3/developer-guide/ddb-account-based-endpoints-v3.html), and
 *   the search endpoints of the DynamoDB client's endpoint rules (`@aws-sdk/client-dynamodb`, installed here);
 * - `control-kinesis`, `data-kinesis`: Kinesis Data Streams' account-based endpoints
 *   `<account-id>.control-kinesis.<region>.amazonaws.com`, chosen by the SDKs when a request names a StreamARN
 *   (aws/aws-sdk-ruby gems/aws-sdk-kinesis/spec/endpoint_provider_spec.rb, "Account endpoint targeting
 *   control operation type");
 * - `queue`: SQS's legacy endpoints `queue.amazonaws.com` (us-east-1) and `<region>.queue.amazonaws.com`
 *   (SQS Developer Guide, API 2009-02-01, "Endpoints"; still returned by boto:
 *   https://github.com/boto/botocore/issues/1418, https://github.com/boto/botocore/issues/2705).
 */
const SERVICE_ALIASES: ReadonlyMap<string, string> = new Map([
  ['ddb', 'dynamodb'],
  ['search-ddb', 'dynamodb'],
  ['search-dynamodb', 'dynamodb'],
  ['control-kinesis', 'kinesis'],
  ['data-kinesis', 'kinesis'],
  ['queue', 'sqs'],
]);

/**
 * Domains of AWS endpoints. API domains of the partitions reachable from the internet, with their dual-stack
 * forms (the SDKs' partition table, `@aws-sdk/core`): `amazonaws.com` (aws, aws-us-gov), `amazonaws.com.cn` and
 * `api.amazonwebservices.com.cn` (aws-cn; https://docs.amazonaws.cn/en_us/eventbridge/latest/userguide/dual-stack.html
 * lists `events.<region>.api.amazonwebservices.com.cn`), `amazonaws.eu` and `api.amazonwebservices.eu`
 * (aws-eusc, the European Sovereign Cloud); the aws dual-stack `*.api.aws` is under `*.aws`, blocked whole.
 * And AWS Sign-In's: `signin.aws.amazon.com`, `<region>.signin.aws.amazon.com`
 * (https://docs.aws.amazon.com/general/latest/gr/signin-service.html), whose `/federation` turns credentials
 * into a console session (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_providers_enable-console-custom-url.html),
 * `signin.amazonaws.cn`, `signin.amazonaws-us-gov.com` and `signin-fips.amazonaws-us-gov.com` (the sign-in
 * client's endpoint rules, `@aws-sdk/nested-clients`).
 */
const AWS_DOMAINS = [
  'amazonaws.com',
  'amazonaws.com.cn',
  'api.amazonwebservices.com.cn',
  'amazonaws.eu',
  'api.amazonwebservices.eu',
  'aws.amazon.com',
  'amazonaws.cn',
  'amazonaws-us-gov.com',
] as const;
/** `us-east-1`, `cn-north-1`, `us-gov-west-1`, `eusc-de-east-1` (the partitions' `regionRegex`). */
const REGION = /^[a-z]{2,4}(-[a-z]+)+-\d+$/;
/** GovCloud's partition-global label: `iam.us-gov.amazonaws.com` (https://docs.aws.amazon.com/general/latest/gr/iam-service.html). */
const PARTITION_LABEL = 'us-gov';

function isRegion(label: string | undefined): boolean {
  return label !== undefined && (REGION.test(label) || label === PARTITION_LABEL);
}

/**
 * The labels of an AWS domain's subdomain up to the one that names the service, or undefined when the
 * name is a customer's resource. Where AWS puts the service label
 * (https://docs.aws.amazon.com/general/latest/gr/rande.html, regional, global, FIPS and dual-stack endpoints):
 * - before the region: `sts.us-east-1`, FIPS `sts-fips.us-east-1`, after any prefix: account-based
 *   `<account-id>.ddb.us-east-1`, S3 Control's `<account-id>.s3-control.us-east-1` (the SDKs move the
 *   `x-amz-account-id` of https://docs.aws.amazon.com/AmazonS3/latest/API/API_control_GetPublicAccessBlock.html
 *   into the host), ECR's registry `<account-id>.dkr.ecr.us-east-1` and `dkr.ecr-fips.us-east-1`
 *   (https://docs.aws.amazon.com/general/latest/gr/ecr.html), EKS's `fips.eks.us-east-1`
 *   (https://docs.aws.amazon.com/general/latest/gr/eks.html), `streams.dynamodb.us-east-1`;
 * - before `dualstack.<region>`: `s3-control.dualstack.us-east-1`, `s3-control-fips.dualstack.us-east-1`
 *   (https://docs.aws.amazon.com/general/latest/gr/s3.html);
 * - before `<region>.vpce`: interface VPC endpoint names `vpce-0a1b2c3d.sts.us-east-1.vpce`
 *   (https://docs.aws.amazon.com/vpc/latest/userguide/endpoint-service.html, "DNS hostnames");
 * - last, with no region: global `iam`, `sts`, `s3-control`, `signin`, GovCloud's `iam.us-gov`, region-first
 *   `us-west-1.queue` (SQS's legacy endpoints) and `us-east-2.signin`, EventBridge global endpoints
 *   `<endpoint-id>.endpoint.events` (`@aws-sdk/client-eventbridge`).
 * Customer endpoints name their own service there (`<id>.execute-api.us-east-1`, `<bucket>.s3.us-east-1`) or
 * put their resource before `<region>.<service>` (`<lb>.us-east-1.elb`, `<db>.<id>.us-east-1.rds`).
 */
function serviceLabels(labels: readonly string[]): readonly string[] | undefined {
  const named = labels.at(-1) === 'vpce' && labels.length > 2 ? labels.slice(0, -1) : labels;
  if (named.length > 1 && isRegion(named.at(-1))) {
    const beforeRegion = named.slice(0, -1);
    return beforeRegion.at(-1) === 'dualstack' ? beforeRegion.slice(0, -1) : beforeRegion;
  }
  const resourceInRegion = labels.length > 2 && isRegion(labels.at(-2));
  return resourceInRegion ? undefined : labels;
}

/**
 * The blocked AWS service a host names, in any documented endpoint form (`sts.us-east-1.amazonaws.com` →
 * `sts`, `123456789012.ddb.us-east-1.amazonaws.com` → `dynamodb`), or undefined. `host` is normalized
 * (lower case, no trailing dot).
 */
export function blockedAwsService(host: string): string | undefined {
  const domain = AWS_DOMAINS.find((d) => host.endsWith(`.${d}`));
  const subdomain = domain === undefined ? undefined : host.slice(0, -domain.length - 1);
  const labels = subdomain === undefined ? undefined : serviceLabels(subdomain.split('.'));
  const label = labels?.at(-1)?.replace(/-fips$/, '');
  if (labels === undefined || !label) return undefined;
  const service = SERVICE_ALIASES.get(label) ?? label;
  // Two-label service names (`streams.dynamodb`, `portal.sso`, `api.ecr`) are reported whole.
  const qualified = labels.length > 1 ? `${labels.at(-2)}.${service}` : service;
  if (BLOCKED_AWS_SERVICES.has(qualified)) return qualified;
  return BLOCKED_AWS_SERVICES.has(service) ? service : undefined;
}
