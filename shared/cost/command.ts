/**
 * `wf cost` (and `npm run cost`): AWS cost per 1,000 runs of a given shape, from measured counts and a dated
 * price table, with model tokens priced apart from the model price table. See docs/deploy.md#cost-per-1000-runs.
 */
import { parseArgs } from 'node:util';
import { costOf, DEFAULT_PRICES, priceFor } from '../core/pricing.ts';
import { AWS_PRICES_US_EAST_1 } from './aws-prices.ts';
import { configuredMemory } from './lambda-memory.ts';
import { MEASURED_PROFILE, type RunStart } from './profile.ts';
import { DEFAULT_ASSUMPTIONS, type RunShape, runCost } from './run-cost.ts';

export const COST_USAGE = `wf cost [--turns 5] [--gated-turns 0] [--tool-calls TURNS-1] [--model-latency 8]
        [--trigger schedule|event] [--cold-turns]
        [--turn-memory-mb MB] [--runs-per-hour 100] [--model claude-sonnet-5-5] [--input-tokens 3000] [--output-tokens 300]
        [--cache-read-share 0.8] [--json]
  AWS cost per 1,000 runs of that shape (us-east-1), and the model tokens apart.`;

const OPTIONS = {
  turns: { type: 'string' },
  'gated-turns': { type: 'string' },
  'tool-calls': { type: 'string' },
  'model-latency': { type: 'string' },
  trigger: { type: 'string' },
  'cold-turns': { type: 'boolean' },
  'turn-memory-mb': { type: 'string' },
  'runs-per-hour': { type: 'string' },
  model: { type: 'string' },
  'input-tokens': { type: 'string' },
  'output-tokens': { type: 'string' },
  'cache-read-share': { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** A bad flag: the message names it. */
export class CostUsageError extends Error {
  override name = 'CostUsageError';
}

function number(value: string | undefined, flag: string, fallback: number, check: (n: number) => boolean) {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || !check(parsed))
    throw new CostUsageError(`--${flag}: '${value}' is not allowed here`);
  return parsed;
}

const count = (n: number) => Number.isInteger(n) && n >= 0;

/** The run shape the flags describe; throws `CostUsageError` naming the flag at fault. */
export function shapeOf(values: Record<string, string | boolean | undefined>): RunShape {
  const str = (key: string) => values[key] as string | undefined;
  const turns = number(str('turns'), 'turns', 5, (n) => count(n) && n >= 1);
  const toolCalls = number(str('tool-calls'), 'tool-calls', turns - 1, count);
  const gatedTurns = number(str('gated-turns'), 'gated-turns', 0, count);
  const modelLatencySeconds = number(str('model-latency'), 'model-latency', 8, (n) => n >= 0 && n <= 900);
  if (toolCalls > 0 && turns < 2)
    throw new CostUsageError(
      '--tool-calls: a run with tool calls has at least 2 turns (the last one answers)',
    );
  if (gatedTurns > toolCalls)
    throw new CostUsageError('--gated-turns: each gated turn is one of the tool calls');
  if (gatedTurns > turns - 1)
    throw new CostUsageError('--gated-turns: at most one gated call ends each turn');
  const trigger = values.trigger as string | undefined;
  if (trigger !== undefined && trigger !== 'schedule' && trigger !== 'event')
    throw new CostUsageError(`--trigger: '${trigger}' is not allowed here (schedule or event)`);
  const start: RunStart = trigger ?? 'api';
  return {
    turns,
    gatedTurns,
    toolCalls,
    modelLatencySeconds,
    start,
    coldTurns: values['cold-turns'] === true,
  };
}

const STARTED = {
  api: 'started by the API',
  schedule: 'started by a schedule',
  event: 'started by an event',
};

const usd = (value: number) => `$${value.toFixed(4)}`;

/** Runs `wf cost` with its own arguments; prints with `print`. Returns the exit status. */
export async function costCommand(argv: string[], print: (text: string) => void): Promise<number> {
  const { values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false });
  const shape = shapeOf(values);
  const configured = await configuredMemory();
  const turnMb = number(
    values['turn-memory-mb'],
    'turn-memory-mb',
    configured.turnMb,
    (n) => count(n) && n >= 128,
  );
  const memory = { ...configured, turnMb };
  const runsPerHour = number(
    values['runs-per-hour'],
    'runs-per-hour',
    DEFAULT_ASSUMPTIONS.runsPerHour,
    (n) => n > 0 && n <= 1e7,
  );
  const prices = AWS_PRICES_US_EAST_1;
  const assumptions = { runsPerHour };
  const { lines, totalUsd } = runCost(shape, { profile: MEASURED_PROFILE, prices, memory, assumptions });
  const model = values.model ?? 'claude-sonnet-5-5';
  const input = number(values['input-tokens'], 'input-tokens', 3000, count);
  const output = number(values['output-tokens'], 'output-tokens', 300, count);
  const share = number(values['cache-read-share'], 'cache-read-share', 0.8, (n) => n >= 0 && n <= 1);
  const read = Math.round(shape.turns * input * share);
  const usage = {
    inputTokens: shape.turns * input - read,
    outputTokens: shape.turns * output,
    cacheCreationInputTokens: 0,
    cacheReadInputTokens: read,
  };
  const tokensUsd = costOf(usage, priceFor(model, DEFAULT_PRICES));
  if (values.json) {
    print(
      JSON.stringify(
        {
          shape,
          memory,
          runsPerHour,
          prices,
          profile: MEASURED_PROFILE,
          lines,
          totalUsd,
          tokens: { model, usage, usdPerRun: tokensUsd },
        },
        null,
        2,
      ),
    );
    return 0;
  }
  print(
    `AWS cost per 1,000 runs, ${prices.region} list prices as of ${prices.asOf} (shared/cost/aws-prices.ts)`,
  );
  // The start and the containers are named only when an option chose them: the default's lines stay as they were.
  const how = [
    ...(shape.start !== 'api' ? [`${STARTED[shape.start ?? 'api']} (StartRun)`] : []),
    ...(shape.coldTurns ? ['every turn on a new Turn container'] : []),
  ];
  print(
    `run: ${shape.turns} turns, ${shape.toolCalls} tool calls (${shape.gatedTurns} gated), ${shape.modelLatencySeconds} s model latency per turn${how.map((part) => `, ${part}`).join('')}; Lambda memory: Turn ${memory.turnMb} MB, others ${memory.otherMb} MB`,
  );
  print(`counts: ${MEASURED_PROFILE.measured}; steady traffic of ${runsPerHour} runs an hour`);
  print('');
  const rows = lines.map((item) => [item.item, `${round(item.quantity)} ${item.unit}`, usd(item.usd * 1000)]);
  rows.push(['total, excluding model tokens', '', usd(totalUsd * 1000)]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of [['item', 'per run', 'per 1,000 runs'], ...rows])
    print(`${row[0]!.padEnd(widths[0]!)}  ${row[1]!.padStart(widths[1]!)}  ${row[2]!.padStart(widths[2]!)}`);
  print('');
  print(
    `model tokens, apart (${model} from the model price table, shared/core/pricing.ts): ${usage.inputTokens} uncached in, ${usage.cacheReadInputTokens} cache-read, ${usage.outputTokens} out per run = ${usd(tokensUsd)} per run, ${usd(tokensUsd * 1000)} per 1,000 runs`,
  );
  return 0;
}

const round = (value: number) => (Number.isInteger(value) ? String(value) : value.toPrecision(4));
