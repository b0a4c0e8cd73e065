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
