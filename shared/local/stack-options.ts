/** The local stack's options and what a started stack hands back (shared/local/stack.ts starts it). */
import type { LocalDefinitions } from '../../infra/local-definition.ts';
import type { DeliverDeps } from '../core/deliver.ts';
import type { TurnDeps } from '../core/engine.ts';
import type { Clock } from '../core/ports.ts';
import type { EnginesConfig } from '../external/index.ts';
import type { ExternalRunDeps } from '../external/run/index.ts';
import type { HumanTaskPort } from '../graph-run/human-task-port.ts';
import type { ServiceStepDeps } from '../graph-run/service-step.ts';
import type { JobsDeps, RetryPolicy } from '../jobs/index.ts';
import type { ScriptedFixture } from '../model/index.ts';
import type { inboxNotifier } from '../notify/index.ts';
import type { ExecutionsPort } from '../runs/index.ts';
import type { AwsCallSink } from '../runtime/aws-call-recorder.ts';
import type { DynamoStore } from '../store/index.ts';
import type { LocalFiles } from './files.ts';
import type { LocalHumanTasks } from './human-tasks-local.ts';
import type { LocalScheduler } from './scheduler.ts';
import type { LocalStepFunctions, SfnRefusal } from './sfn/index.ts';

export type LocalStackOptions = {
  /** Where DynamoDB data, the keyring, API keys and secrets live. Default `.local`. */
  dataDir?: string;
  /** Use an already running DynamoDB (Local) instead of starting one (tests). */
  dynamodbEndpoint?: string;
  /** Keep DynamoDB data in memory (tests). */
  inMemory?: boolean;
  tableName?: string;
  /** HTTP port of the API and approval pages. Default 8787; 0 picks a free one. */
  port?: number;
  /**
   * Host names, besides 127.0.0.1, localhost and [::1], that the HTTP server answers to (a LAN name, a
   * reverse proxy's). Every other `Host` is refused (421): the DNS-rebinding defence.
   */
  hostNames?: string[];
  /**
   * Host names inside this deployment: a POST, PUT, PATCH or DELETE to any other host is an external publish
   * and needs approval whatever the workflow's gate says. Default: none.
   */
  internalHosts?: string[];
  /** Real Claude when set; otherwise the scripted Messages-API server. */
  anthropicApiKey?: string;
  /** Fixtures for the scripted model; default: every examples/fixtures/*.fixture.json. */
  fixtures?: ScriptedFixture[];
  /**
   * Directories of `*.fixture.json` served besides `fixtures` (a project's own win by name); read again when
   * a request names a fixture not served yet (`wf local up --fixtures DIR`, default `./fixtures`).
   */
  fixtureDirs?: string[];
  /** The Anthropic API's base URL (default the SDK's): a test points it at a scripted server. */
  anthropicBaseUrl?: string;
  /**
   * With an API key: keep each workflow's latest conversation through a recording proxy, served as a fixture
   * at `GET /local/runs/{id}/recording` (`wf run start --record DIR`). Default false.
   */
  record?: boolean;
  /** Loopback ports the egress guard may reach (local demo servers). Never the stack's own port. */
  allowLoopbackPorts?: number[];
  /** Schedule evaluation interval; 0 disables the local scheduler. Default 15 s. */
  schedulerIntervalMs?: number;
  /** Wait between Step Functions retries, scaled down locally (ms). Default 200. */
  retryIntervalMs?: number;
  clock?: Clock;
  /**
   * How long the keyring and secrets files are used before they are read again (as the TTL of the secret
   * caches on AWS): a rotated key or secret takes effect within this. Default 5 minutes.
   */
  secretsMaxAgeMs?: number;
  /** Where notices and lines meant for the person at the terminal go. Default: stdout. */
  print?: (text: string) => void;
  /** Test hook: wraps the Turn handler's dependencies (fault injection, e.g. a crash between dispatch and settle). */
  wrapTurnDeps?: (deps: TurnDeps) => TurnDeps;
  /**
   * Bench hook, asked at every Turn invocation: true runs that turn on a new container of the Turn function, its
   * dependencies composed again on a store of their own (on the same table and client) whose caches are empty
   * (workflow versions: version-cache.ts; transcripts: transcript-cache.ts), as on AWS when Lambda starts a
   * container for the turn. Unsigned, as the Turn function's store on AWS (shared/runtime/aws/store.ts).
   * Default: one container serves every turn (`npm run bench:cost-profile`'s cold-container shapes set it).
   */
  newTurnContainer?: () => boolean;
  /**
   * Records every AWS call (DynamoDB, Step Functions) with the logical name of the function that made it
   * (tests: the offline IAM check, test/iam). Calls the stack makes for itself are recorded as `local`.
   */
  awsCalls?: AwsCallSink;
  /**
   * Test hook: told each Step Functions request the local endpoint refuses as AWS would, as it happens
   * (`sfnRefusals` keeps them too; a stack in a process its test kills reports them before it dies).
   */
  onSfnRefusal?: (refusal: SfnRefusal) => void;
  /** Test hook: wraps a graph service step's dependencies (fault injection: a crash between call and settle). */
  wrapServiceDeps?: (deps: ServiceStepDeps) => ServiceStepDeps;
  /**
   * The human-task service of graph runs. Default: shared/human-tasks (task records, signed links to the
   * inbox and the terminal, the form pages). `'in-memory'`: the stand-in `stack.humanTasks`, whose `submit`
   * answers the wait directly (tests of the executor).
   */
  humanTasks?: HumanTaskPort | 'in-memory';
  /**
   * The external engines this stack enables (`kind: external` workflows), as `externalEngines` in CDK.
   * Default: `<dataDir>/engines.json` when present, else none. A loopback engine's port must be in
   * `allowLoopbackPorts`.
   */
  externalEngines?: EnginesConfig;
  /**
   * The SNS topics an `alert` destination may name in `destination.topicArn`, as `alertTopics` in CDK: a topic
   * ARN, or `{ topicArn, owners }` for a topic only those owners may name. Checked when a workflow is saved, as
   * on AWS; the local stack publishes no alerts (an alert delivery is recorded as refused). Default: none.
   */
  alertTopics?: (string | { topicArn: string; owners: string[] })[];
  /**
   * The approvers (and human-task assignees) each owner may name, as `approvers` in CDK context: owner id (or
   * `*`, every owner) → approver emails. Checked when a workflow or grant is saved, as on AWS; the inbox still
   * shows every link. Default: every approver may be named.
   */
  approvers?: Record<string, string[]>;
  /** How long each external `ObserveWait` pauses locally, in ms (the definition's seconds scaled down). Default 1000. */
  externalObserveWaitMs?: number;
  /** Test hook: wraps the external steps' dependencies (fault injection: a crash after the engine accepted). */
  wrapExternalDeps?: (deps: ExternalRunDeps) => ExternalRunDeps;
  /** Test hook: wraps the Deliver handler's dependencies (fault injection, e.g. a crash after sending). */
  wrapDeliverDeps?: (deps: DeliverDeps) => DeliverDeps;
  /**
   * A scripted Messages-API server that is already running (a test's, which outlives the stack and counts
   * the calls); without it and without an API key the stack starts its own.
   */
  scriptedModelUrl?: string;
  /** How often the delegated-jobs sweep runs (docs/jobs.md); 0 disables it. Default 15 s. */
  jobSweepIntervalMs?: number;
  /** Delegated jobs' retry waits (tests shorten them). Default DEFAULT_RETRY_POLICY. */
  jobRetry?: RetryPolicy;
  /**
   * The state machines to run, as `synthesizeLocalDefinitions()` (infra/local-definition.ts) returns them, when
   * the caller synthesized them already (a test run does once for all its files, test/setup/local-definitions.ts).
   * Default: synthesized at start, which imports the CDK app (seconds of CPU).
   */
  definitions?: LocalDefinitions;
};

export type LocalStack = {
  url: string;
  apiKey: string;
  owner: string;
  files: LocalFiles;
  store: DynamoStore;
  sfn: LocalStepFunctions;
  /** The graph state machine (graph runs). */
  graphSfn: LocalStepFunctions;
  /** The external state machine (external runs). */
  externalSfn: LocalStepFunctions;
  /** The in-memory human tasks of graph runs (used with the `humanTasks: 'in-memory'` option). */
  humanTasks: LocalHumanTasks;
  executions: ExecutionsPort;
  /**
   * The Step Functions requests the local endpoint refused as AWS would (a `cause` over 32,768 characters, …:
   * shared/local/sfn/README.md, "Request rules"), the last 100: the tests' stacks fail on any.
   */
  sfnRefusals: readonly SfnRefusal[];
  inbox: ReturnType<typeof inboxNotifier>;
  scheduler: LocalScheduler;
  modelUrl: string | undefined;
  resumed: string[];
  /** Delegated jobs' dependencies (the sweep, tests). */
  jobs: JobsDeps;
  /** Deliverable runs found without a delivery record on start, delivered (or refused) then. */
  delivered: string[];
  /**
   * Every route the stack's HTTP server matches, `METHOD path` as Hono lists them (middleware and fallbacks,
   * method ALL, left out): what test/e2e/tenancy-routes.test.ts holds a fixture for, route by route.
   */
  routes: readonly string[];
  stop(): Promise<void>;
};
