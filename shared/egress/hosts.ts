/**
 * Host names: pattern matching for allow/block lists and the built-in blocked hosts that no workflow can
 * allow-list (loopback names, cloud metadata names, internal suffixes, AWS API endpoints).
 */
import { isIP } from 'node:net';
import { normalizeAddress } from './address.ts';

/** Lower-case host without IPv6 brackets or trailing dots (`Example.COM.` → `example.com`). */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  while (h.endsWith('.')) h = h.slice(0, -1);
  return isIP(h) ? (normalizeAddress(h) ?? h) : h;
}

/** Why a host pattern is malformed, or undefined when it is fine (`api.example.com`, `*.example.com`, `::1`). */
export function hostPatternProblem(pattern: string): string | undefined {
  const p = normalizeHost(pattern);
  if (p === '') return 'empty pattern';
  if (isIP(p)) return undefined;
  const name = p.startsWith('*.') ? p.slice(2) : p;
  if (name.includes('*')) return 'a wildcard is only allowed as the whole first label (`*.example.com`)';
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(name)) return 'not a host name (no scheme, port or path)';
  return undefined;
}

/** Exact match, or `*.example.com` matching any name strictly below example.com (not example.com itself). */
export function matchesHostPattern(host: string, pattern: string): boolean {
  const h = normalizeHost(host);
  const p = normalizeHost(pattern);
  if (!p.startsWith('*.')) return h === p;
  if (isIP(h)) return false;
  const suffix = p.slice(1);
  return h.length > suffix.length && h.endsWith(suffix);
}

/** True when the host matches one of the patterns. */
export function matchesAnyHost(host: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => matchesHostPattern(host, pattern));
}

/** Names that always mean "this machine", "this network" or a cloud metadata service. */
export const BUILTIN_BLOCKED_HOSTS = [
  'localhost',
  '*.localhost',
  'localhost.localdomain',
  'ip6-localhost',
  'ip6-loopback',
  'instance-data',
  'metadata',
  'metadata.google.internal',
  '*.internal',
  '*.local',
  '*.localdomain',
  '*.home.arpa',
  '*.aws',
] as const;

/**
 * AWS service endpoints that act on the account with IAM (`<service>[-fips][.<region>].amazonaws.com[.cn]`).
 * Customer-facing endpoints under amazonaws.com (API Gateway `*.execute-api…`, ELB `*.elb…`, S3 buckets,
 * AppSync, OpenSearch domains) stay reachable; they are ordinary destinations checked by address.
 */
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
]);

const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
const AMAZONAWS = /^(.+)\.amazonaws\.com(\.cn)?$/;

/** The AWS API service a host names (`sts.us-east-1.amazonaws.com` → `sts`), if it is a blocked one. */
export function blockedAwsService(host: string): string | undefined {
  const match = AMAZONAWS.exec(normalizeHost(host));
  if (!match?.[1]) return undefined;
  const labels = match[1].split('.');
  if (labels.length > 1 && REGION.test(labels.at(-1) ?? '')) labels.pop();
  labels[0] = (labels[0] ?? '').replace(/-fips$/, '');
  const service = labels.join('.');
  return BLOCKED_AWS_SERVICES.has(service) ? service : undefined;
}

/** The built-in rule that blocks this host (`*.internal`, `aws:sts`, `single-label name`), or undefined. */
export function builtinBlockRule(host: string): string | undefined {
  const h = normalizeHost(host);
  const pattern = BUILTIN_BLOCKED_HOSTS.find((p) => matchesHostPattern(h, p));
  if (pattern !== undefined) return pattern;
  const service = blockedAwsService(h);
  if (service !== undefined) return `aws:${service}`;
  // A dotless name is completed by the resolver's search domains: always an internal name.
  if (!isIP(h) && !h.includes('.')) return 'single-label name';
  return undefined;
}
