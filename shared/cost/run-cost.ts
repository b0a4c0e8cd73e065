/**
 * What one run of a given shape costs on AWS, from the measured counts (profile.ts), the price table
 * (aws-prices.ts) and the configured Lambda memory. Pure arithmetic: model tokens are not part of it.
 */
import type { AwsPrices } from './aws-prices.ts';
import type { CostProfile, CountsPart } from './profile.ts';

/** A run: model turns, of its tool calls how many needed approval, and how long each model call waits. */
export type RunShape = { turns: number; gatedTurns: number; toolCalls: number; modelLatencySeconds: number };

/** Lambda memory (MB) of the Turn function and of the others, as the infra props configure them. */
export type LambdaMemory = { turnMb: number; otherMb: number };

/** What the counts do not measure, stated. */
export type CostAssumptions = {
  /** Billed time of a DynamoDB request inside the Turn function (AWS: single-digit ms; rounded up). */
  secondsPerDynamoRequest: number;
  /** Billed time of an invocation of any other function (start, delivery, approval request and pages). */
  otherInvocationSeconds: number;
  /** CloudWatch Logs bytes per invocation: platform START/END/REPORT lines, the runtime's logs and EMF metrics. */
  logBytesPerInvocation: number;
  /** Approvers notified per gated call (one SNS publish and one email each). */
  approvers: number;
};

export const DEFAULT_ASSUMPTIONS: CostAssumptions = {
  secondsPerDynamoRequest: 0.01,
  otherInvocationSeconds: 0.1,
  logBytesPerInvocation: 1536,
  approvers: 1,
};

/** One priced line of a run: what, how many per run, and USD per run. */
export type CostLine = { item: string; quantity: number; unit: string; usd: number };

/** The measured counts of a run of this shape: fixed + per turn + per tool call + per gated call. */
export function countsFor(shape: RunShape, profile: CostProfile): CountsPart {
  const sum = (key: keyof CountsPart) =>
    profile.fixed[key] +
    shape.turns * profile.perTurn[key] +
    shape.toolCalls * profile.perToolCall[key] +
    shape.gatedTurns * profile.perGatedTurn[key];
  return {
    transitions: sum('transitions'),
    dynamoReads: sum('dynamoReads'),
    dynamoWrites: sum('dynamoWrites'),
    readUnits: sum('readUnits'),
    writeUnits: sum('writeUnits'),
  };
}

/** The AWS lines of one run, in USD per run (multiply by 1,000 for the table). */
export function runCost(
  shape: RunShape,
  inputs: { profile: CostProfile; prices: AwsPrices; memory: LambdaMemory; assumptions?: CostAssumptions },
): { lines: CostLine[]; totalUsd: number } {
  const { profile, prices, memory } = inputs;
  const a = inputs.assumptions ?? DEFAULT_ASSUMPTIONS;
  const counts = countsFor(shape, profile);
  const requestsOf = (part: CountsPart) => part.dynamoReads + part.dynamoWrites;
  // The Turn function waits on the model, then makes its turn's and its tool calls' requests.
  const turnSeconds =
    shape.turns * shape.modelLatencySeconds +
    (shape.turns * requestsOf(profile.perTurn) + shape.toolCalls * requestsOf(profile.perToolCall)) *
      a.secondsPerDynamoRequest;
  // Api (start) and Deliver once per run; RequestApproval and ApprovalHttp (page, decision) per gated call.
  const others = 2 + shape.gatedTurns * 3;
  const invocations = shape.turns + others;
  const gbSeconds = (turnSeconds * memory.turnMb + others * a.otherInvocationSeconds * memory.otherMb) / 1024;
  const notices = shape.gatedTurns * a.approvers;
  // Upper bound: one secret read per Turn (the model key) and per approval function call (the signing keyring).
  const secretReads = shape.turns + shape.gatedTurns * 3;
  const logGb = (invocations * a.logBytesPerInvocation) / 1e9;
  const lines: CostLine[] = [
    line('Step Functions state transitions', counts.transitions, 'transitions', prices.stateTransition),
    line('Lambda compute', gbSeconds, 'GB-s', prices.lambdaGbSecond),
    line('Lambda requests', invocations, 'invocations', prices.lambdaRequest),
    line('DynamoDB reads', counts.readUnits, 'RRU', prices.readUnit),
    line('DynamoDB writes', counts.writeUnits, 'WRU', prices.writeUnit),
    line('API Gateway (HTTP API)', 1 + shape.gatedTurns * 2, 'requests', prices.apiRequest),
    line('SNS publishes', notices, 'publishes', prices.snsPublish),
    line('SNS email', notices, 'emails', prices.snsEmail),
    line('Secrets Manager (upper bound)', secretReads, 'API calls', prices.secretsCall),
    line('CloudWatch Logs ingestion', logGb, 'GB', prices.logsGb),
    line('X-Ray (upper bound)', invocations, 'traces', prices.xrayTrace),
  ];
  return { lines, totalUsd: lines.reduce((sum, item) => sum + item.usd, 0) };
}

const line = (item: string, quantity: number, unit: string, price: number): CostLine => ({
  item,
  quantity,
  unit,
  usd: quantity * price,
});
