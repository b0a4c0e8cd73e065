/**
 * Properties of `WorkflowRuntime`, the per-handler function settings and the validation of the props.
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { EnginesConfig } from '../../shared/external/index.ts';
import type { AlertTopicDeclaration } from './alert-topics.ts';
import type { ApproverDeclaration } from './approval-notices.ts';
import type { OwnerSubscription } from './owner-notices.ts';
import type { ApiAuth, ApiThrottle } from './runtime-api.ts';
import { type PowertoolsLogLevel, RUNTIME_FUNCTION_DEFAULTS } from './runtime-function.ts';
import type { HandlerName } from './state-names.ts';

/** Where model calls go. */
export type ModelProvider = 'anthropic' | 'bedrock';

/** Value of a created Anthropic key secret until an operator puts the real key (docs/deploy.md). */
export const ANTHROPIC_API_KEY_PLACEHOLDER = 'REPLACE_ME: put the Anthropic API key here (docs/deploy.md)';

/** Properties of a `WorkflowRuntime`. */
export interface WorkflowRuntimeProps {
  /** Where model calls go: the Anthropic API (key in Secrets Manager) or Amazon Bedrock (IAM). @default 'anthropic' */
  readonly modelProvider?: ModelProvider;
  /**
   * The Anthropic API key, a plain-string secret. Only with `modelProvider: 'anthropic'`.
   * @default - a secret holding a placeholder is created; put the key into it after deploying (docs/deploy.md)
   */
  readonly anthropicApiKeySecret?: secretsmanager.ISecret;
  /**
   * Bedrock model and inference-profile ARNs the Turn function may invoke. Only with `modelProvider: 'bedrock'`.
   * @default - Anthropic foundation models in any region and Anthropic inference profiles of this account
   */
  readonly bedrockModelArns?: readonly string[];
  /**
   * Approvers (and human-task assignees), each declared for the owners whose workflows may name them:
   * `[{ email: 'carol@example.com', owners: ['<owner id>'] }]`; `owners: ['*']` is every owner, deliberately.
   * Each is subscribed to approval notices for those owners only: the API refuses a workflow naming an approver
   * not declared for its owner, and request-approval sends such a notice to nobody (docs/security.md,
   * "Approvers per owner"). @default - none
   */
  readonly approvers?: readonly ApproverDeclaration[];
  /** Owners and the addresses that hear of their failed, denied and expired runs. @default - none */
  readonly ownerNotices?: readonly OwnerSubscription[];
  /** What happens to the table, the log groups and the audit signing key when they leave the stack. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Authentication of `/v1`. @default ApiAuth.iam() */
  readonly apiAuth?: ApiAuth;
  /** Stage throttling of the HTTP API. @default { rateLimit: 50, burstLimit: 100 } */
  readonly apiThrottle?: ApiThrottle;
  /** Name of the custom event bus. @default - unique per stack, derived from the stack name and construct path */
  readonly eventBusName?: string;
  /**
   * Secrets that workflows may reference as credRefs must have names starting with this; the credential-reader
   * role reads only `<prefix><ownerKey>/*`. Give each deployment in one account and Region its own, none a prefix
   * of another's. @default - 'wf/' in the stack `WfRuntime`, `wf-<stack name>/` in any other (deployment-names.ts)
   */
  readonly credentialSecretPrefix?: string;
  /**
   * Host names that are part of this deployment (internal services). A POST, PUT, PATCH or DELETE from an action
   * to any other host is an external publish and needs a human's approval, whatever a workflow's gate says; only
   * this operator setting exempts a host. Exact host names, no wildcards. @default - none: every host is outside
   */
  readonly internalHosts?: readonly string[];
  /** Base URL of approval links, e.g. behind a custom domain. @default - `<api endpoint>/approvals` */
  readonly approvalBaseUrl?: string;
  /** Topic that `alert` destinations publish to (Deliver gets publish rights). @default - no alert destination */
  readonly alertTopic?: sns.ITopic;
  /**
   * Further topics an `alert` destination may name in `destination.topicArn` (Deliver gets publish rights on
   * each; the API refuses any other topic when a workflow is saved). A topic alone is every owner's;
   * `{ topic, owners }` is only those owners' (another owner's workflow naming it is refused when saved, and
   * its run's alert when delivered). @default - none: alerts go to `alertTopic`
   */
  readonly alertTopics?: readonly AlertTopicDeclaration[];
  /** Topic notified by alarms (customer managed key or unencrypted). @default - alarms without actions */
  readonly alarmTopic?: sns.ITopic;
  /** Retention of all log groups. @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** `POWERTOOLS_LOG_LEVEL` of all functions. @default 'INFO' */
  readonly logLevel?: PowertoolsLogLevel;
  /**
   * CloudWatch namespace of the metrics the functions emit (`POWERTOOLS_METRICS_NAMESPACE`); the dashboard and
   * alarms read it. Give each deployment in one account and region its own.
   * @default - 'WfRuntime' in the stack `WfRuntime`, `WfRuntime/<stack name>` in any other (deployment-names.ts)
   */
  readonly metricsNamespace?: string;
  /**
   * The external engines this deployment enables, by registry name, with their settings, e.g.
   * `{ 'http-runtime': { enabled: true, settings: { endpoint: 'https://engine.internal' } } }`. Validated at
   * synth; a workflow naming another engine is refused when saved (docs/external-engines.md). @default - none
   */
  readonly externalEngines?: EnginesConfig;
  /**
   * Bundle the Powertools Tracer into every function: an X-Ray subsegment per AWS SDK call (DynamoDB, Step
   * Functions, Secrets Manager …) and run/owner annotations, at ~125 KB more per bundle and its import time.
   * Lambda and Step Functions traces are recorded either way (docs/deploy.md, "Tracing"). @default false
   */
  readonly traceAwsCalls?: boolean;
}

/** Per-handler function settings: construct id, description, memory and timeout. */
export const FUNCTION_SETTINGS: Record<
  HandlerName,
  {
    id: string;
    description: string;
    memorySize?: number;
    timeout?: Duration;
    /** Extra environment variables of this function (the table name is added to them). */
    environment?: Readonly<Record<string, string>>;
  }
> = {
  turn: {
    id: 'Turn',
    description: 'One model turn of a run (state Turn)',
    // From measurement (`npm run bench:turn-memory`, docs/deploy.md "Turn memory"). Rule: memory ≥ 1.25 × the
    // highest peak RSS of the scenarios within the limits (200 turns; a ~4 MB, ~1M-token transcript; a 2.5 MB
    // answer; three of them served by one warm container). With the V8 and malloc settings below the worst of
    // those peaks at 130 MB (1.25 × 130 = 163 ≤ 165; 160 MB misses by ~3 MB), where V8's and glibc's defaults let
    // the 200-turn run reach ~184 MB (256 MB then). 165 MB keeps `wf cost` under the $0.47 goal (#16): $0.4684.
    // Lambda takes any value of 128–10,240 MB in 1 MB steps
    // (https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html).
    memorySize: 165,
    environment: {
      // V8's young generation held to 1 MB semi-spaces (V8 sizes them up to 16 MB and more from the machine's
      // memory, and a young generation is 3 semi-spaces) and its old space to 64 MB, the working set of the
      // largest transcript with room. Both options are allowed in NODE_OPTIONS
      // (https://nodejs.org/api/cli.html#node_optionsoptions), which Lambda's Node.js runtime reads
      // (https://docs.aws.amazon.com/lambda/latest/dg/lambda-nodejs.html).
      NODE_OPTIONS: '--max-semi-space-size=1 --max-old-space-size=64',
      // glibc's malloc (Amazon Linux 2023, https://docs.aws.amazon.com/lambda/latest/dg/lambda-nodejs.html):
      // one arena for all threads, and blocks of 128 KB and more mapped on their own and unmapped when freed,
      // the top of the heap given back past 128 KB. With glibc's defaults (an arena per thread, a mapping
      // threshold that rises with the blocks freed) a 2.5 MB answer's buffers stayed resident: ~10 MB more.
      // https://www.gnu.org/software/libc/manual/html_node/Memory-Allocation-Tunables.html ; none of these
      // names is reserved (https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime).
      MALLOC_ARENA_MAX: '1',
      MALLOC_MMAP_THRESHOLD_: '131072',
      MALLOC_TRIM_THRESHOLD_: '131072',
    },
    // A model call may take up to 10 minutes (shared/model); tools dispatch after it.
    timeout: Duration.minutes(15),
  },
  'request-approval': {
    id: 'RequestApproval',
    description: 'Stores the task token, sends signed approval links',
  },
  expire: { id: 'Expire', description: 'Records pending approvals as expired (fail closed)' },
  deliver: {
    id: 'Deliver',
    description: 'Sends a run result to its destination',
    timeout: Duration.seconds(60),
  },
  'mark-failed': { id: 'MarkFailed', description: 'Records a run as failed' },
  // API Gateway HTTP APIs wait at most 30 seconds for an integration
  // (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html): the functions behind it
  // are given 29 s.
  'approval-http': {
    id: 'ApprovalHttp',
    description: 'Approval pages and decisions',
    timeout: Duration.seconds(29),
  },
  api: { id: 'Api', description: 'Runtime HTTP API (/v1)', timeout: Duration.seconds(29) },
  'workflow-write': {
    id: 'WorkflowWrite',
    description: 'Runtime HTTP API: creating workflows, saving and publishing versions (/v1/workflows)',
    timeout: Duration.seconds(29),
  },
  'start-run': { id: 'StartRun', description: 'Starts runs for schedules and events' },
  'jobs-sweep': { id: 'JobsSweep', description: 'Settles and promotes delegated jobs every minute' },
  mcp: { id: 'Mcp', description: 'Delegated jobs MCP server (/mcp)', timeout: Duration.seconds(29) },
  'graph-advance': {
    id: 'GraphAdvance',
    description:
      'Graph runs: decides the ready steps, records waits that ended (states Advance, CompleteStep)',
  },
  'graph-service': {
    id: 'GraphService',
    description: 'Graph runs: one service step, an action call under the ledger',
    timeout: Duration.seconds(120),
  },
  external: {
    id: 'External',
    description:
      'External runs: start, observe and finish an engine execution (states ExternalStart, ExternalObserve, ExternalFinish)',
    timeout: Duration.seconds(120),
  },
  'graph-wait': {
    id: 'GraphWait',
    description: 'Graph runs: starts a child agent or external run with the wait task token, or pauses',
  },
  'human-task': {
    id: 'HumanTask',
    description: 'Graph runs: opens a human task with the wait task token and sends the signed links',
  },
};

/** A task's timeout: its function's timeout plus a minute, so the Lambda timeout (a clear error) fires first. */
export function taskTimeoutFor(handler: HandlerName): Duration {
  const seconds = FUNCTION_SETTINGS[handler].timeout?.toSeconds() ?? RUNTIME_FUNCTION_DEFAULTS.timeoutSeconds;
  return Duration.seconds(seconds + 60);
}

/** Throws an error naming the bad value and the fix when the props contradict each other or are malformed. */
export function validateWorkflowRuntimeProps(
  id: string,
  props: WorkflowRuntimeProps,
  provider: ModelProvider,
): void {
  if (provider !== 'anthropic' && provider !== 'bedrock') {
    throw new Error(
      `WorkflowRuntime '${id}': modelProvider '${String(provider)}' is unknown; use 'anthropic' or 'bedrock'.`,
    );
  }
  if (provider === 'bedrock' && props.anthropicApiKeySecret !== undefined) {
    throw new Error(
      `WorkflowRuntime '${id}': anthropicApiKeySecret is set but modelProvider is 'bedrock'; ` +
        "remove the secret or set modelProvider: 'anthropic'.",
    );
  }
  if (provider === 'anthropic' && props.bedrockModelArns !== undefined) {
    throw new Error(
      `WorkflowRuntime '${id}': bedrockModelArns is set but modelProvider is 'anthropic'; ` +
        "remove it or set modelProvider: 'bedrock'.",
    );
  }
  for (const host of props.internalHosts ?? []) {
    if (!/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(host)) {
      throw new Error(
        `WorkflowRuntime: internalHosts entry '${host}' is not a host name; give exact names like 'billing.internal.example.com' (no scheme, port, path or wildcard).`,
      );
    }
  }
  const prefix = props.credentialSecretPrefix;
  if (prefix !== undefined && !/^[A-Za-z0-9/_+=.@-]{1,64}$/.test(prefix)) {
    throw new Error(
      `WorkflowRuntime '${id}': credentialSecretPrefix '${prefix}' is not a secret-name prefix; ` +
        "use characters of A-Z a-z 0-9 / _ + = . @ -, e.g. 'wf/'.",
    );
  }
  const base = props.approvalBaseUrl;
  if (base !== undefined && !base.startsWith('https://')) {
    throw new Error(
      `WorkflowRuntime '${id}': approvalBaseUrl '${base}' must be an https URL, e.g. 'https://approvals.example.com/approvals'.`,
    );
  }
}
