/**
 * Grants that no recorded call uses but a function needs all the same, each with the reason. A grant that
 * is neither used by a recorded call nor listed here fails test/iam/recorded-calls.test.ts: remove the grant,
 * drive the path that uses it in test/iam/flow.ts, or document the need here.
 */
export type DocumentedNeed = { fn: string; action: string; reason: string };

const ALL = '*';

export const DOCUMENTED_NEEDS: readonly DocumentedNeed[] = [
  {
    fn: 'start-run',
    action: 'sqs:SendMessage',
    reason:
      "The trigger dead-letter queue is start-run's on-failure destination: Lambda sends the record of an asynchronous invocation that failed every attempt with the function's role (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html).",
  },
  ...(['mark-failed', 'external'] as const).map((fn) => ({
    fn,
    action: 'sqs:SendMessage',
    reason:
      "The execution-ended dead-letter queue is the function's on-failure destination: Lambda sends the record of an asynchronous invocation (an execution-ended rule's) that failed every attempt with the function's role (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html).",
  })),
  {
    fn: ALL,
    action: 'logs:CreateLogStream',
    reason:
      'The Lambda service writes the function logs with the execution role (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs.html).',
  },
  {
    fn: ALL,
    action: 'logs:PutLogEvents',
    reason: 'As logs:CreateLogStream: the Lambda runtime, not the handler, sends the logs.',
  },
  {
    fn: ALL,
    action: 'xray:PutTraceSegments',
    reason:
      'Active tracing: the Lambda service sends segments with the execution role (https://docs.aws.amazon.com/lambda/latest/dg/services-xray.html).',
  },
  {
    fn: ALL,
    action: 'xray:PutTelemetryRecords',
    reason: 'As xray:PutTraceSegments.',
  },
  {
    fn: 'request-approval',
    action: 'kms:Decrypt',
    reason:
      "Publishing to the SSE-encrypted approval-notices topic (alias/aws/sns) needs kms:GenerateDataKey* and kms:Decrypt on its key; SNS makes these calls on the publisher's behalf (https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html).",
  },
  {
    fn: 'request-approval',
    action: 'kms:GenerateDataKey*',
    reason: 'As kms:Decrypt: SNS encrypts the published message with the topic key for the publisher.',
  },
  {
    fn: 'human-task',
    action: 'kms:Decrypt',
    reason:
      "Human-task links go out on the SSE-encrypted approval-notices topic (alias/aws/sns): SNS uses the topic key with kms:GenerateDataKey* and kms:Decrypt on the publisher's behalf (https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html).",
  },
  {
    fn: 'human-task',
    action: 'kms:GenerateDataKey*',
    reason: 'As kms:Decrypt: the approval-notices topic key.',
  },
  {
    fn: 'mark-failed',
    action: 'kms:Decrypt',
    reason:
      'Owner notices: publishing to the SSE-encrypted owner-notices topic (alias/aws/sns) needs kms:Decrypt and kms:GenerateDataKey* on its key, used by SNS for the publisher (https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html).',
  },
  {
    fn: 'mark-failed',
    action: 'kms:GenerateDataKey*',
    reason: 'As kms:Decrypt: the owner-notices topic key.',
  },
  {
    fn: 'deliver',
    action: 'kms:Decrypt',
    reason:
      'Owner notices: publishing to the SSE-encrypted owner-notices topic (alias/aws/sns) needs kms:Decrypt and kms:GenerateDataKey* on its key, used by SNS for the publisher (https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html).',
  },
  { fn: 'deliver', action: 'kms:GenerateDataKey*', reason: 'As kms:Decrypt: the owner-notices topic key.' },
  {
    fn: 'expire',
    action: 'kms:Decrypt',
    reason:
      'Owner notices: publishing to the SSE-encrypted owner-notices topic (alias/aws/sns) needs kms:Decrypt and kms:GenerateDataKey* on its key, used by SNS for the publisher (https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html).',
  },
  { fn: 'expire', action: 'kms:GenerateDataKey*', reason: 'As kms:Decrypt: the owner-notices topic key.' },
  {
    fn: 'external',
    action: 'kms:Decrypt',
    reason:
      'Owner notices of external runs its steps end failed or denied: publishing to the SSE-encrypted owner-notices topic (alias/aws/sns) needs kms:Decrypt and kms:GenerateDataKey* on its key, used by SNS for the publisher (https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html).',
  },
  { fn: 'external', action: 'kms:GenerateDataKey*', reason: 'As kms:Decrypt: the owner-notices topic key.' },
  // The first commit of an API-started run deletes its pending-run marker (DeleteItem, shared/store/pending-runs.ts):
  // the flow's keyed starts are marked too, so Turn's and graph-advance's grant is recorded, not listed here.
  // External's own commits check the live head, and the api's trigger sync fences the trigger index on the
  // workflow head's rev (both recorded by the flow), so their anchoring need is not listed.
  // A contended anchor's registration (a ConditionCheck of the run's anchor marker, shared/store/anchor-group.ts)
  // is recorded for Deliver, MarkFailed, the Mcp's cancels and the jobs sweep's end of an API start left pending:
  // the flow makes two of their runs end together (flow.ts, contendedAnchors). The api's and External's
  // ConditionCheckItem grants are recorded by other calls.
  // MarkFailed's StopExecution is recorded: the flow fails a graph while its agent step's child runs (flow.ts,
  // graph-day-capped), and mark-failed stops the child's execution (shared/graph-run/end-children.ts).
  // The jobs sweep's other needs are recorded too: the flow leaves an API start pending past minAgeMs for the
  // sweep's pending-runs step (DescribeExecution, the markers' and the pending anchor's DeleteItem), and cancels a
  // job while the sweep is starting it (StopExecution). So is the api's DescribeExecution (unkeyed starts whose
  // StartExecution failed, on each machine) and its delete of job queue entries (a cancel through /v1/jobs).
];

/** The documented need for `action` of `fn`, if any. */
export const documentedNeed = (fn: string, action: string): DocumentedNeed | undefined =>
  DOCUMENTED_NEEDS.find((need) => (need.fn === ALL || need.fn === fn) && need.action === action);

/**
 * A partition a function is granted a partitioned action in (infra/constructs/table-access.ts WRITE_PARTITIONS,
 * DELETE_PARTITIONS) that no recorded call of the flow writes in, with the reason and what drives it instead.
 * A pattern neither recorded nor listed here fails test/iam/recorded-calls.test.ts.
 */
export type DocumentedPartitionNeed = DocumentedNeed & { partition: string };

export const DOCUMENTED_PARTITION_NEEDS: readonly DocumentedPartitionNeed[] = [
  {
    fn: 'api',
    action: 'dynamodb:DeleteItem',
    partition: 'CLIENT#*',
    reason:
      "A grant head written before grants were per owner (`CLIENT#<clientId>`), moved to its owner's key by its next change (shared/jobs/grant-store.ts). A fresh table holds none; test/jobs/grants.test.ts seeds one and drives the move.",
  },
];
