/**
 * AWS list prices `wf cost` uses: us-east-1, on-demand, no free tier, recorded 2026-12-01 from the pricing
 * pages cited per line. Prices change: re-check the pages and update the date with the numbers.
 */
export type AwsPrices = {
  region: string;
  asOf: string;
  /** Step Functions Standard, per state transition. */
  stateTransition: number;
  /** Lambda on arm64, per GB-second of billed duration (billed per 1 ms). */
  lambdaGbSecond: number;
  lambdaRequest: number;
  /** DynamoDB on-demand, per read / write request unit. */
  readUnit: number;
  writeUnit: number;
  /** API Gateway HTTP API, per request (first 300 million a month). */
  apiRequest: number;
  /** EventBridge Scheduler, per scheduled invocation; EventBridge, per custom event published (64 KB each). */
  schedulerInvocation: number;
  customEvent: number;
  /** SNS, per publish request and per email delivered. */
  snsPublish: number;
  snsEmail: number;
  /** Secrets Manager, per API call (GetSecretValue). */
  secretsCall: number;
  /** CloudWatch Logs, per GB ingested (standard class). */
  logsGb: number;
  /** X-Ray, per trace recorded. */
  xrayTrace: number;
  /** KMS, per request on an asymmetric key other than RSA 2048 (the audit signing key's `kms:Sign`). */
  kmsAsymmetricRequest: number;
};

export const AWS_PRICES_US_EAST_1: AwsPrices = {
  region: 'us-east-1',
  asOf: '2026-12-01',
  // https://aws.amazon.com/step-functions/pricing/ — Standard: $0.025 per 1,000 state transitions.
  stateTransition: 0.025 / 1_000,
  // https://aws.amazon.com/lambda/pricing/ — Arm: $0.0000133334 per GB-second; $0.20 per 1M requests.
  lambdaGbSecond: 0.000_013_333_4,
  lambdaRequest: 0.2 / 1_000_000,
  // https://aws.amazon.com/dynamodb/pricing/on-demand/ — $0.125 per million read, $0.625 per million write request units.
  readUnit: 0.125 / 1_000_000,
  writeUnit: 0.625 / 1_000_000,
  // https://aws.amazon.com/api-gateway/pricing/ — HTTP APIs: $1.00 per million requests (first 300 million).
  apiRequest: 1 / 1_000_000,
  // https://aws.amazon.com/eventbridge/pricing/ — Scheduler: $1.00 per million scheduled invocations (after 14
  // million free a month); event buses: $1.00 per million custom events published, each 64 KB chunk an event.
  schedulerInvocation: 1 / 1_000_000,
  customEvent: 1 / 1_000_000,
  // https://aws.amazon.com/sns/pricing/ — $0.50 per million publishes; email $2.00 per 100,000 notifications.
  snsPublish: 0.5 / 1_000_000,
  snsEmail: 2 / 100_000,
  // https://aws.amazon.com/secrets-manager/pricing/ — $0.05 per 10,000 API calls ($0.40 per secret-month is fixed).
  secretsCall: 0.05 / 10_000,
  // https://aws.amazon.com/cloudwatch/pricing/ — Logs: $0.50 per GB ingested (custom metrics are per metric-month, fixed).
  logsGb: 0.5,
  // https://aws.amazon.com/xray/pricing/ — $5.00 per million traces recorded.
  xrayTrace: 5 / 1_000_000,
  // https://aws.amazon.com/kms/pricing/ — $0.15 per 10,000 asymmetric requests except RSA 2048 (the audit signing
  // key is ECC_NIST_P256: infra/constructs/audit-signing-key.ts); the 20,000 free requests a month do not cover
  // asymmetric requests. Each key is $1 a month, fixed.
  kmsAsymmetricRequest: 0.15 / 10_000,
};
