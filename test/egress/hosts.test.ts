import { describe, expect, it } from 'vitest';
import { hostPatternProblem } from '../../shared/egress/hosts.ts';
import { builtinBlockRule, matchesHostPattern } from '../../shared/egress/index.ts';

describe('matchesHostPattern', () => {
  it.each([
    ['api.example.com', 'api.example.com', true],
    ['API.Example.com.', 'api.example.com', true],
    ['api.example.com', '*.example.com', true],
    ['a.b.example.com', '*.example.com', true],
    ['example.com', '*.example.com', false],
    ['badexample.com', '*.example.com', false],
    ['example.com.evil.net', '*.example.com', false],
    ['example.com.evil.net', 'example.com', false],
    ['evil-api.example.com', 'api.example.com', false],
    ['::1', '::1', true],
    ['0:0:0:0:0:0:0:1', '::1', true],
    ['127.0.0.1', '*.0.0.1', false],
  ])('%s against %s → %s', (host, pattern, expected) => {
    expect(matchesHostPattern(host, pattern)).toBe(expected);
  });
});

describe('hostPatternProblem', () => {
  it.each(['api.example.com', '*.example.com', '127.0.0.1', '::1', 'svc_name.example.com'])(
    'accepts %s',
    (pattern) => {
      expect(hostPatternProblem(pattern)).toBeUndefined();
    },
  );

  it.each([
    '',
    '*',
    'a.*.example.com',
    '*example.com',
    'https://example.com',
    'example.com:443',
    'example.com/path',
  ])('rejects %j', (pattern) => {
    expect(hostPatternProblem(pattern)).toEqual(expect.any(String));
  });
});

describe('builtinBlockRule', () => {
  it.each([
    ['localhost', 'localhost'],
    ['LOCALHOST.', 'localhost'],
    ['app.localhost', '*.localhost'],
    ['localhost.localdomain', 'localhost.localdomain'],
    ['metadata.google.internal', 'metadata.google.internal'],
    ['ip-10-0-0-1.ec2.internal', '*.internal'],
    ['instance-data', 'instance-data'],
    ['printer.local', '*.local'],
    ['router.home.arpa', '*.home.arpa'],
    ['sts.us-east-1.api.aws', '*.aws'],
    ['abc.lambda-url.us-east-1.on.aws', '*.aws'],
    ['sts.amazonaws.com', 'aws:sts'],
    ['sts.us-east-1.amazonaws.com', 'aws:sts'],
    ['sts-fips.us-east-2.amazonaws.com', 'aws:sts'],
    ['sts.cn-north-1.amazonaws.com.cn', 'aws:sts'],
    ['iam.amazonaws.com', 'aws:iam'],
    ['secretsmanager.eu-west-1.amazonaws.com', 'aws:secretsmanager'],
    ['states.us-east-1.amazonaws.com', 'aws:states'],
    ['lambda.ap-southeast-2.amazonaws.com', 'aws:lambda'],
    ['dynamodb.us-gov-west-1.amazonaws.com', 'aws:dynamodb'],
    ['streams.dynamodb.us-east-1.amazonaws.com', 'aws:streams.dynamodb'],
    ['kms.us-east-1.amazonaws.com', 'aws:kms'],
    ['ssm.us-east-1.amazonaws.com', 'aws:ssm'],
    ['intranet', 'single-label name'],
    ['wpad', 'single-label name'],
  ])('blocks %s (rule %s)', (host, rule) => {
    expect(builtinBlockRule(host)).toBe(rule);
  });

  it.each([
    'api.example.com',
    'abc123.execute-api.us-east-1.amazonaws.com',
    'my-bucket.s3.us-east-1.amazonaws.com',
    's3.amazonaws.com',
    'my-lb-123.us-east-1.elb.amazonaws.com',
    'internal.example.com',
    'localhost.example.com',
    '93.184.216.34',
  ])('leaves %s to the address checks', (host) => {
    expect(builtinBlockRule(host)).toBeUndefined();
  });
});

// Every endpoint form AWS documents for a blocked service (sources cited in shared/egress/aws-hosts.ts).
describe('builtinBlockRule on AWS API endpoint forms', () => {
  it.each([
    // DynamoDB account-based endpoints, the SDKs' default since 2024, and its search endpoints.
    ['123456789012.ddb.us-east-1.amazonaws.com', 'aws:dynamodb'],
    ['123456789012.ddb.cn-north-1.amazonaws.com.cn', 'aws:dynamodb'],
    ['123456789012.search-ddb.us-west-2.amazonaws.com', 'aws:dynamodb'],
    ['search-dynamodb-fips.us-east-1.amazonaws.com', 'aws:dynamodb'],
    ['dynamodb-fips.us-east-2.amazonaws.com', 'aws:dynamodb'],
    // S3 Control: the account id in the host is its standard form; dual-stack and FIPS variants.
    ['s3-control.amazonaws.com', 'aws:s3-control'],
    ['123456789012.s3-control.us-west-2.amazonaws.com', 'aws:s3-control'],
    ['123456789012.s3-control.dualstack.us-east-1.amazonaws.com', 'aws:s3-control'],
    ['123456789012.s3-control-fips.us-east-1.amazonaws.com', 'aws:s3-control'],
    ['123456789012.s3-control-fips.dualstack.us-gov-west-1.amazonaws.com', 'aws:s3-control'],
    ['s3-control.cn-northwest-1.amazonaws.com.cn', 'aws:s3-control'],
    // SQS legacy endpoints.
    ['queue.amazonaws.com', 'aws:sqs'],
    ['us-west-2.queue.amazonaws.com', 'aws:sqs'],
    ['eu-west-1.queue.amazonaws.com', 'aws:sqs'],
    ['sqs-fips.us-east-1.amazonaws.com', 'aws:sqs'],
    // Dual-stack and FIPS in other label positions, China and the European Sovereign Cloud.
    ['sts.dualstack.us-east-1.amazonaws.com', 'aws:sts'],
    ['sts-fips.dualstack.us-east-1.amazonaws.com', 'aws:sts'],
    ['kms.cn-north-1.amazonaws.com.cn', 'aws:kms'],
    ['events.cn-north-1.api.amazonwebservices.com.cn', 'aws:events'],
    ['sts.eusc-de-east-1.amazonaws.eu', 'aws:sts'],
    ['secretsmanager.eusc-de-east-1.api.amazonwebservices.eu', 'aws:secretsmanager'],
    // Global endpoints of a partition.
    ['iam-fips.amazonaws.com', 'aws:iam'],
    ['iam.us-gov.amazonaws.com', 'aws:iam'],
    ['route53.us-gov.amazonaws.com', 'aws:route53'],
    ['sns.us-gov-west-1.amazonaws.com', 'aws:sns'],
    // Prefixed service labels: ECR's registry, EKS FIPS, Identity Center portal, Kinesis account endpoints.
    ['123456789012.dkr.ecr.us-east-1.amazonaws.com', 'aws:ecr'],
    ['dkr.ecr-fips.us-east-1.amazonaws.com', 'aws:ecr'],
    ['api.ecr.eu-central-1.amazonaws.com', 'aws:api.ecr'],
    ['fips.eks.us-east-1.amazonaws.com', 'aws:eks'],
    ['portal.sso-fips.us-east-1.amazonaws.com', 'aws:portal.sso'],
    ['123456789012.control-kinesis.us-east-1.amazonaws.com', 'aws:kinesis'],
    ['123456789012.data-kinesis.us-east-1.amazonaws.com', 'aws:kinesis'],
    // AWS Sign-In, whose federation endpoint turns credentials into a console session.
    ['signin.aws.amazon.com', 'aws:signin'],
    ['us-east-2.signin.aws.amazon.com', 'aws:signin'],
    ['signin.us-east-1.amazonaws.com', 'aws:signin'],
    ['signin.amazonaws.cn', 'aws:signin'],
    ['signin-fips.amazonaws-us-gov.com', 'aws:signin'],
    // EventBridge global endpoints and interface VPC endpoint names.
    ['abcde.veo.endpoint.events.amazonaws.com', 'aws:events'],
    ['vpce-0a1b2c3d4e5f67890-abcdefgh.sts.us-east-1.vpce.amazonaws.com', 'aws:sts'],
    [
      'vpce-0a1b2c3d4e5f67890-abcdefgh-us-east-1a.secretsmanager.us-east-1.vpce.amazonaws.com',
      'aws:secretsmanager',
    ],
    ['Queue.AmazonAWS.com.', 'aws:sqs'],
    // Fail closed: a blocked service before the region is refused whatever precedes it (docs/egress.md).
    ['anything.sts.us-east-1.amazonaws.com', 'aws:sts'],
    // Services that act on the account, at their regional API endpoints.
    ['bedrock-agentcore.us-east-1.amazonaws.com', 'aws:bedrock-agentcore'],
    ['bedrock-agentcore-control.us-east-1.amazonaws.com', 'aws:bedrock-agentcore-control'],
    ['cloudtrail-data.us-east-1.amazonaws.com', 'aws:cloudtrail-data'],
    ['elasticloadbalancing.us-east-1.amazonaws.com', 'aws:elasticloadbalancing'],
    ['autoscaling.us-east-1.amazonaws.com', 'aws:autoscaling'],
    ['pipes.us-east-1.amazonaws.com', 'aws:pipes'],
    ['dsql.us-east-1.amazonaws.com', 'aws:dsql'],
    ['access-analyzer.us-east-1.amazonaws.com', 'aws:access-analyzer'],
    ['backup.us-east-1.amazonaws.com', 'aws:backup'],
    ['securityhub.us-east-1.amazonaws.com', 'aws:securityhub'],
    ['guardduty.us-east-1.amazonaws.com', 'aws:guardduty'],
    ['wafv2.us-east-1.amazonaws.com', 'aws:wafv2'],
    ['mydb.c1abcdefgh.rds.cn-north-1.amazonaws.com.cn', 'aws:rds'],
  ])('blocks %s (rule %s)', (host, rule) => {
    expect(builtinBlockRule(host)).toBe(rule);
  });

  it.each([
    // S3 buckets named like a blocked service or an alias, in every addressing style.
    'ddb.s3.amazonaws.com',
    'queue.s3.us-east-1.amazonaws.com',
    'sts.s3.dualstack.us-east-1.amazonaws.com',
    'my-bucket.s3.amazonaws.com',
    'kms.us-east-1.s3.amazonaws.com',
    'queue.s3-website-us-east-1.amazonaws.com',
    'bucket.vpce-0a1b2c3d4e5f67890-abcdefgh.s3.us-east-1.vpce.amazonaws.com',
    // API Gateway, AppSync, OpenSearch, load balancers, databases, clusters, instances.
    'abc123.execute-api.us-east-1.amazonaws.com',
    'abc123.execute-api.cn-north-1.amazonaws.com.cn',
    'abc123.appsync-api.eu-west-1.amazonaws.com',
    'search-logs-abc123.us-east-1.es.amazonaws.com',
    'sts-123456.us-east-1.elb.amazonaws.com',
    'dualstack.my-lb-123.us-east-1.elb.amazonaws.com',
    'my-nlb-123.elb.us-east-1.amazonaws.com',
    'mydb.abc123.us-east-1.rds.amazonaws.com',
    'queue.abc123.us-east-1.rds.amazonaws.com',
    'abcdef0123.gr7.us-east-1.eks.amazonaws.com',
    'ec2-203-0-113-25.compute-1.amazonaws.com',
    'ec2-203-0-113-25.us-west-2.compute.amazonaws.com',
    // AWS's own sites beside the sign-in endpoints.
    'aws.amazon.com',
    'docs.aws.amazon.com',
    'us-east-1.console.aws.amazon.com',
    'console.amazonaws.cn',
    // Look-alikes outside AWS's domains.
    'signin.aws.amazon.com.evil.example',
    'sts.amazonaws.com.evil.example',
    'queue.amazonaws.co',
    'ddb.example.com',
  ])('leaves %s to the address checks', (host) => {
    expect(builtinBlockRule(host)).toBeUndefined();
  });
});
