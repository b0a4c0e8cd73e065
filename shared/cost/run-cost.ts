/**
 * What one run of a given shape costs on AWS, from the measured counts (profile.ts), the price table
 * (aws-prices.ts) and the configured Lambda memory. Pure arithmetic: model tokens are not part of it.
 */
import { SECRET_CACHE_TTL_MS } from '../credentials/file-secrets.ts';
import type { AwsPrices } from './aws-prices.ts';
import type { CostProfile, CountsPart, RunParts, RunStart } from './profile.ts';

/**
 * A run: model turns, of its tool calls how many needed approval, and how long each model call waits; how it
 * starts (default `api`), and whether every turn lands on a new Turn container (`coldTurns`, default false: on
 * a warm one, as the profile's parts are measured).
 */
export type RunShape = {
  turns: number;
  gatedTurns: number;
  toolCalls: number;
  modelLatencySeconds: number;
  start?: RunStart;
  coldTurns?: boolean;
};

/** Lambda memory (MB) of the Turn function and of the others, as the infra props configure them. */
export type LambdaMemory = { turnMb: number; otherMb: number };

/** What the counts do not measure, stated. */
export type CostAssumptions = {
  /** Billed time of a DynamoDB request inside the Turn function (AWS: single-digit ms; rounded up). */
  secondsPerDynamoRequest: number;
  /**
   * CPU milliseconds of one turn in a warm Turn container (the runtime, the SDKs: marshalling, signing, zod,
   * audit sealing), on a full core. Lambda gives a function CPU in proportion to its memory, one vCPU at
   * 1,769 MB (https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html), so a turn's wall time
   * grows by this ÷ (memory ÷ 1,769). Measured by `npm run bench:turn-memory` (CPU ms per turn of the 200-turn
   * run, the synthesized bundle: 24.8–26.3 ms on 2026-12-03); a new container's first turns take more (its
   * warm-up, shared by the runs it serves), not counted.
   */
  turnCpuMsPerTurn: number;
  /**
   * A new Turn container, before its turn: the import of the Turn bundle (CPU ms on a full core), billed since
   * 2025-08-01 as the INIT phase of on-demand functions of managed runtimes
   * (https://aws.amazon.com/blogs/compute/aws-lambda-standardizes-billing-for-init-phase/), taken at the function's
   * share of a vCPU as a turn's CPU is (an upper bound: AWS does not document the CPU of the INIT phase). Measured
   * by `npm run bench:turn-memory` (the "import only" row: 425–432 ms in three samples on 2026-12-03, median 428).
   */
  turnInitCpuMs: number;
  /**
   * CPU ms of a turn that is its container's first (composition, the first requests and the model call through
   * code not yet optimized), in place of `turnCpuMsPerTurn`: `npm run bench:turn-memory`, the "one turn on a new
   * container" row (122–145 ms in three samples on 2026-12-03, median 129).
   */
  coldTurnCpuMs: number;
  /** Billed time of an invocation of any other function (start, delivery, approval request and pages). */
  otherInvocationSeconds: number;
  /** CloudWatch Logs bytes per invocation: platform START/END/REPORT lines, the runtime's logs and EMF metrics. */
  logBytesPerInvocation: number;
  /** Approvers notified per gated call (one SNS publish and one email each). */
  approvers: number;
  /** Steady traffic: runs started per hour. Decides how often a warm Turn container re-reads its secret. */
  runsPerHour: number;
  /** How long a container keeps a secret it read (SECRET_CACHE_TTL_MS, Powertools `maxAge`). */
  secretCacheSeconds: number;
};

/** Lambda's memory for one full vCPU (configuration-memory.html): below it, CPU is in proportion to memory. */
export const FULL_VCPU_MB = 1769;

export const DEFAULT_ASSUMPTIONS: CostAssumptions = {
  secondsPerDynamoRequest: 0.01,
  turnCpuMsPerTurn: 25,
  turnInitCpuMs: 428,
  coldTurnCpuMs: 129,
  otherInvocationSeconds: 0.1,
  logBytesPerInvocation: 1536,
  approvers: 1,
  runsPerHour: 100,
  secretCacheSeconds: SECRET_CACHE_TTL_MS / 1000,
};

/** One priced line of a run: what, how many per run, and USD per run. */
export type CostLine = { item: string; quantity: number; unit: string; usd: number };

const PART_KEYS = ['transitions', 'dynamoReads', 'dynamoWrites', 'readUnits', 'writeUnits'] as const;
const partsCounts = (shape: RunShape, parts: RunParts, key: keyof CountsPart) =>
  parts.fixed[key] +
  shape.turns * parts.perTurn[key] +
  shape.toolCalls * parts.perToolCall[key] +
  shape.gatedTurns * parts.perGatedTurn[key];

/**
 * Transcript messages the turns of a run read on new containers that a warm container would hold. A turn's
 * transcript holds 1 + 2k messages at turn k (the prompt, then each earlier turn's answer and its tool results);
 * turn 0 reads its one message on any container. A turn right after a gated call reads its transcript on a
 * warm container too (measured: the gated shape's cold turns added only the version reads), so those add none;
 * the gated calls are taken as the run's first turns, which makes the most of the rest. Each message as one
 * item of the turn's BatchGetItem (turn-read.ts), under 4 KB as the bench's are.
 */
export function coldMessageReads(shape: RunShape): number {
  let messages = 0;
  for (let k = 1 + shape.gatedTurns; k < shape.turns; k++) messages += 1 + 2 * k;
  return messages;
}

/**
 * The measured counts of a run of this shape: fixed + per turn + per tool call + per gated call, with a trigger's
 * start its parts added, and with cold turns the version and transcript reads of new containers.
 */
export function countsFor(shape: RunShape, profile: CostProfile): CountsPart {
  const start = shape.start ?? 'api';
  const trigger = start === 'api' ? undefined : profile.triggerStart[start];
  const messages = shape.coldTurns ? coldMessageReads(shape) : 0;
  const sum = (key: keyof CountsPart) =>
    partsCounts(shape, profile, key) +
    (trigger ? partsCounts(shape, trigger, key) : 0) +
    (shape.coldTurns
      ? shape.turns * profile.coldTurns.perTurn[key] + messages * profile.coldTurns.perMessageRead[key]
      : 0);
  return Object.fromEntries(PART_KEYS.map((key) => [key, sum(key)])) as CountsPart;
}

/** The AWS lines of one run, in USD per run (multiply by 1,000 for the table). */
export function runCost(
  shape: RunShape,
  inputs: {
    profile: CostProfile;
    prices: AwsPrices;
    memory: LambdaMemory;
    assumptions?: Partial<CostAssumptions>;
  },
): { lines: CostLine[]; totalUsd: number } {
  const { profile, prices, memory } = inputs;
  const a: CostAssumptions = { ...DEFAULT_ASSUMPTIONS, ...inputs.assumptions };
  const counts = countsFor(shape, profile);
  const requestsOf = (part: CountsPart) => part.dynamoReads + part.dynamoWrites;
  // The Turn function waits on the model, works on its CPU share, and makes its turn's and its tool calls' requests.
  // A turn on a new container: the INIT phase (the bundle's import) before it, and its first-turn CPU.
  const cpuMsPerTurn = shape.coldTurns ? a.turnInitCpuMs + a.coldTurnCpuMs : a.turnCpuMsPerTurn;
  const turnSeconds =
    shape.turns * shape.modelLatencySeconds +
    (shape.turns * cpuMsPerTurn) / 1000 / Math.min(1, memory.turnMb / FULL_VCPU_MB) +
    (shape.turns * requestsOf(profile.perTurn) + shape.toolCalls * requestsOf(profile.perToolCall)) *
      a.secondsPerDynamoRequest;
  // Api or StartRun (start), Deliver and the jobs sweep once per run; RequestApproval and ApprovalHttp (page,
  // decision) per gated call. The sweep's run-ended rule invokes it for every ended execution of the run machine,
  // a delegated job's or not (infra/constructs/jobs-sweep.ts); its read of the run is in the profile (the local
  // stack settles the job in process after Deliver: shared/local/run-end-local.ts).
  const others = 3 + shape.gatedTurns * 3;
  const invocations = shape.turns + others;
  const gbSeconds = (turnSeconds * memory.turnMb + others * a.otherInvocationSeconds * memory.otherMb) / 1024;
  const notices = shape.gatedTurns * a.approvers;
  // A new container reads the model key once (its key cache is the container's: shared/runtime/aws/model.ts).
  const secretReads =
    (shape.coldTurns ? shape.turns : turnSecretReads(shape, turnSeconds, a)) + shape.gatedTurns * 3;
  const start = shape.start ?? 'api';
  const logGb = (invocations * a.logBytesPerInvocation) / 1e9;
  const traces = xrayTraces(shape);
  const tracesPerSecond = (a.runsPerHour * traces) / 3600;
  const lines: CostLine[] = [
    line('Step Functions state transitions', counts.transitions, 'transitions', prices.stateTransition),
    line('Lambda compute', gbSeconds, 'GB-s', prices.lambdaGbSecond),
    line('Lambda requests', invocations, 'invocations', prices.lambdaRequest),
    line('DynamoDB reads', counts.readUnits, 'RRU', prices.readUnit),
    line('DynamoDB writes', counts.writeUnits, 'WRU', prices.writeUnit),
    // A trigger's run starts with no API request: the schedule or the event invokes StartRun.
    line(
      'API Gateway (HTTP API)',
      (start === 'api' ? 1 : 0) + shape.gatedTurns * 2,
      'requests',
      prices.apiRequest,
    ),
    ...(start === 'schedule'
      ? [line('EventBridge Scheduler', 1, 'invocations', prices.schedulerInvocation)]
      : start === 'event'
        ? [line('EventBridge custom events', 1, 'events', prices.customEvent)]
        : []),
    line('SNS publishes', notices, 'publishes', prices.snsPublish),
    line('SNS email', notices, 'emails', prices.snsEmail),
    line('Secrets Manager (5-min cache)', secretReads, 'API calls', prices.secretsCall),
    line('CloudWatch Logs ingestion', logGb, 'GB', prices.logsGb),
    // Deliver anchors the run's audit head and signs the owner's heads (shared/store/signed-heads.ts): one
    // kms:Sign per run at most (none when a concurrent anchor's signing already covered the same heads).
    line('KMS Sign (owner audit heads)', 1, 'requests', prices.kmsAsymmetricRequest),
    line(
      'X-Ray (default sampling rule)',
      traces * xraySampledShare(tracesPerSecond),
      'traces',
      prices.xrayTrace,
    ),
  ];
  return { lines, totalUsd: lines.reduce((sum, item) => sum + item.usd, 0) };
}

/**
 * Model-key reads of the Turn function per run. A container reads the secret once per cache lifetime and at
 * most once per invocation: at steady traffic the busy containers (Turn seconds per hour ÷ 3,600, at least
 * one) each read once per lifetime, shared by the runs of that hour; a container idle longer than the
 * lifetime reads on every invocation, which bounds it by the turns.
 */
export function turnSecretReads(shape: RunShape, turnSeconds: number, a: CostAssumptions): number {
  const busyContainers = Math.max(1, (a.runsPerHour * turnSeconds) / 3600);
  const readsPerHour = Math.min(a.runsPerHour * shape.turns, (busyContainers * 3600) / a.secretCacheSeconds);
  return readsPerHour / a.runsPerHour;
}

/**
 * X-Ray traces per run, before sampling: a trace is every segment of one trace ID
 * (https://docs.aws.amazon.com/xray/latest/devguide/xray-concepts.html#xray-concepts-traces). The API request
 * that starts the run and its execution are ONE trace: the Api function's StartExecution carries the
 * invocation's trace ID as `X-Amzn-Trace-Id` (the AWS SDK does so inside Lambda:
 * test/runtime/execution-trace-header.test.ts) and Step Functions continues the trace it is passed
 * (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-xray-tracing.html), then passes it to the
 * Lambda functions its tasks invoke. Per gated call, the approval page and the decision arrive as new API
 * requests (an HTTP API passes no trace header): a trace each. The jobs sweep's run-ended invocation is one more:
 * the execution's status-change event reaches it through EventBridge from Step Functions itself, with no trace
 * header, so Lambda starts a trace of its own (infra/constructs/jobs-sweep.ts). docs/deploy.md, "Tracing".
 */
export function xrayTraces(shape: RunShape): number {
  return 2 + shape.gatedTurns * 2;
}

/**
 * The share of traces X-Ray's default sampling rule records at a steady rate of new traces per second: the
 * first request each second (the reservoir) and 5% of the rest
 * (https://docs.aws.amazon.com/xray/latest/devguide/xray-console-sampling.html). The reservoir is the whole
 * account's for that rule, so other traffic on the default rule lowers it: an upper bound. Below one trace a
 * second it is all of them.
 */
export function xraySampledShare(tracesPerSecond: number): number {
  if (tracesPerSecond <= 1) return 1;
  return (1 + 0.05 * (tracesPerSecond - 1)) / tracesPerSecond;
}

const line = (item: string, quantity: number, unit: string, price: number): CostLine => ({
  item,
  quantity,
  unit,
  usd: quantity * price,
});
