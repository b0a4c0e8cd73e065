/**
 * Logs and metrics of the handler shells (Powertools Logger and Metrics). Configured by the POWERTOOLS_*
 * variables `RuntimeFunction` sets; the core never sees them (it returns outcomes, the shells count them).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { RUNTIME_METRICS } from '../../infra/constructs/metric-names.ts';
import { cutText } from '../core/byte-caps.ts';
import type { MetricPoint } from './run-metrics.ts';

/** A handler's logger, and its metrics when they are on (always in Lambda; elsewhere only when configured). */
export type Telemetry = { logger: Logger; metrics: Metrics | undefined };

/** Keys appended to every log line of one invocation. Never a token, a secret or a signed URL. */
export type InvocationKeys = { runId?: string; turn?: number; owner?: string; approvalId?: string };

/** The Lambda context, as far as the logger reads it (any adapter's context type fits, Hono's too). */
export type LambdaContextLike = {
  functionName: string;
  functionVersion: string;
  invokedFunctionArn: string;
  memoryLimitInMB: string | number;
  awsRequestId: string;
};

/**
 * Telemetry from the environment. In Lambda: the construct's log level and metrics namespace. Elsewhere (the
 * local stack, tests) metrics stay off unless `POWERTOOLS_METRICS_NAMESPACE` is set, and logs show warnings
 * and errors unless `POWERTOOLS_LOG_LEVEL` says otherwise, so a terminal is not flooded with JSON.
 */
export function createTelemetry(env: NodeJS.ProcessEnv = process.env): Telemetry {
  const inLambda = Boolean(env.AWS_LAMBDA_FUNCTION_NAME);
  return {
    logger: new Logger(inLambda || env.POWERTOOLS_LOG_LEVEL ? {} : { logLevel: 'WARN' }),
    metrics: inLambda || env.POWERTOOLS_METRICS_NAMESPACE ? new Metrics() : undefined,
  };
}

let shared: Telemetry | undefined;
/** The telemetry of this process's handlers, created on first use. */
export const handlerTelemetry = (): Telemetry => {
  shared ??= createTelemetry();
  return shared;
};

/** Adds metric points: dimensioned ones are emitted at once (their own EMF line), the rest at the flush. */
export function recordPoints(metrics: Metrics | undefined, points: readonly MetricPoint[]): void {
  if (!metrics) return;
  for (const point of points) {
    const spec: (typeof RUNTIME_METRICS)[keyof typeof RUNTIME_METRICS] = RUNTIME_METRICS[point.name];
    if ('dimension' in spec && point.dimension !== undefined) {
      metrics
        .singleMetric()
        .addDimension(spec.dimension.name, point.dimension)
        .addMetric(point.name, spec.unit, point.value);
    } else {
      metrics.addMetric(point.name, spec.unit, point.value);
    }
  }
}

/**
 * Runs one invocation: `keys` on every log line while it runs, a failure logged with them, and the stored
 * metrics flushed at the end whatever happens (the middy-free form of `logMetrics`).
 */
export async function withInvocation<T>(
  telemetry: Telemetry,
  keys: InvocationKeys,
  work: () => Promise<T>,
  context?: LambdaContextLike,
): Promise<T> {
  const { logger, metrics } = telemetry;
  // `addContext` reads exactly the fields of `LambdaContextLike` (and an optional tenant id).
  if (context) logger.addContext(context as Parameters<Logger['addContext']>[0]);
  logger.appendKeys(keys);
  try {
    return await work();
  } catch (error) {
    // Name and message only: the stack is in Lambda's own error record, and nothing here carries a token.
    const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
    logger.error('invocation failed', { error: { name, message: cutText(message, 500) } });
    throw error;
  } finally {
    if (metrics?.hasStoredMetrics()) metrics.publishStoredMetrics();
    logger.resetKeys();
  }
}
