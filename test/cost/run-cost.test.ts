import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../shared/cli/main.ts';
import { AWS_PRICES_US_EAST_1 } from '../../shared/cost/aws-prices.ts';
import { CostUsageError, shapeOf } from '../../shared/cost/command.ts';
import { type CostProfile, MEASURED_PROFILE } from '../../shared/cost/profile.ts';
import {
  coldMessageReads,
  countsFor,
  DEFAULT_ASSUMPTIONS,
  runCost,
  turnSecretReads,
  xraySampledShare,
  xrayTraces,
} from '../../shared/cost/run-cost.ts';

const profile: CostProfile = {
  measured: 'test',
  fixed: { transitions: 2, dynamoReads: 10, dynamoWrites: 4, readUnits: 10, writeUnits: 20 },
  perTurn: { transitions: 2, dynamoReads: 2, dynamoWrites: 2, readUnits: 2, writeUnits: 10 },
  perToolCall: { transitions: 0, dynamoReads: 1, dynamoWrites: 1, readUnits: 1, writeUnits: 5 },
  perGatedTurn: { transitions: 1, dynamoReads: 5, dynamoWrites: 3, readUnits: 5, writeUnits: 12 },
  coldTurns: {
    perTurn: { transitions: 0, dynamoReads: 1, dynamoWrites: 0, readUnits: 1, writeUnits: 0 },
    perMessageRead: { transitions: 0, dynamoReads: 0, dynamoWrites: 0, readUnits: 0.5, writeUnits: 0 },
  },
  triggerStart: {
    schedule: {
      fixed: { transitions: 0, dynamoReads: 0, dynamoWrites: 0, readUnits: 0, writeUnits: 4 },
      perTurn: { transitions: 0, dynamoReads: 0, dynamoWrites: 0, readUnits: 0, writeUnits: 0 },
      perToolCall: { transitions: 0, dynamoReads: 0, dynamoWrites: 0, readUnits: 0, writeUnits: 0 },
      perGatedTurn: { transitions: 0, dynamoReads: 0, dynamoWrites: 0, readUnits: 0, writeUnits: 0 },
    },
    event: {
      fixed: { transitions: 0, dynamoReads: 0, dynamoWrites: 0, readUnits: 0, writeUnits: 8 },
      perTurn: { transitions: 0, dynamoReads: 0, dynamoWrites: 0, readUnits: 0, writeUnits: 4 },
      perToolCall: { transitions: 0, dynamoReads: 0, dynamoWrites: 0, readUnits: 0, writeUnits: 3 },
      perGatedTurn: { transitions: 0, dynamoReads: 1, dynamoWrites: 0, readUnits: 2, writeUnits: 1 },
    },
  },
};
// 3 turns, 2 tool calls of which 1 gated, 10 s per model call; Turn 1024 MB, others 512 MB.
const shape = { turns: 3, toolCalls: 2, gatedTurns: 1, modelLatencySeconds: 10 };
const memory = { turnMb: 1024, otherMb: 512 };

describe('Function: runCost', () => {
  it('adds the measured parts of a run: fixed + turns + tool calls + gated calls', () => {
    expect(countsFor(shape, profile)).toEqual({
      transitions: 2 + 3 * 2 + 0 + 1,
      dynamoReads: 10 + 6 + 2 + 5,
      dynamoWrites: 4 + 6 + 2 + 3,
      readUnits: 10 + 6 + 2 + 5,
      writeUnits: 20 + 30 + 10 + 12,
    });
  });

  it('prices a run as computed by hand', () => {
    // Act
    const { lines, totalUsd } = runCost(shape, { profile, prices: AWS_PRICES_US_EAST_1, memory });

    // Assess — by hand:
    // Turn: 3 × 10 s + (3 turns × 4 requests + 2 calls × 2 requests) × 10 ms = 30.16 s, plus 3 turns × 25 ms
    // of CPU at 1024/1769 of a vCPU = 0.129565 s, at 1 GB; others: Api, Deliver, the jobs sweep (its run-ended
    // rule), RequestApproval, 2 × ApprovalHttp = 6 × 0.1 s at 0.5 GB = 0.3 GB-s → 30.589565 GB-s.
    const byItem = Object.fromEntries(lines.map((line) => [line.item, line]));
    expect(byItem['Lambda compute']?.quantity).toBeCloseTo(30.46 + (0.075 * 1769) / 1024, 10);
    expect(byItem['Lambda requests']?.quantity).toBe(9);
    expect(byItem['API Gateway (HTTP API)']?.quantity).toBe(3);
    // Secrets at 100 runs/hour: one busy Turn container (100 × 30.16 s < 1 h) reads 12 times an hour = 0.12
    // per run, plus one read per approval function call (3).
    expect(byItem['Secrets Manager (5-min cache)']?.quantity).toBeCloseTo(3.12, 10);
    // X-Ray: the starting API request with its execution (one trace), the jobs sweep's run-ended invocation
    // (one), and the page and decision of the gated call; at 100 runs an hour (4 traces each: 0.11 a second)
    // the default rule records all of them.
    expect(byItem['X-Ray (default sampling rule)']?.quantity).toBe(4);
    // The owner's audit heads signed once, when Deliver anchors the run.
    expect(byItem['KMS Sign (owner audit heads)']?.quantity).toBe(1);
    expect(byItem['KMS Sign (owner audit heads)']?.usd).toBeCloseTo(0.000015, 12);
    // 9 × $0.000025 + 30.589565 × $0.0000133334 + 9 × $0.0000002 + 23 × $0.000000125 + 72 × $0.000000625
    // + 3 × $0.000001 + $0.0000005 + $0.00002 + 3.12 × $0.000005 + (9 × 1536 / 1e9) × $0.50 + 4 × $0.000005
    // + $0.000015 = $0.000763549912 per run.
    expect(totalUsd).toBeCloseTo(0.000763549912, 12);
  });

  it('counts model latency only in the Turn function, at its memory', () => {
    // Prepare: at 1 run an hour every turn reads its secret, whatever the latency.
    const inputs = { profile, prices: AWS_PRICES_US_EAST_1, memory, assumptions: { runsPerHour: 1 } };

    // Act
    const slow = runCost({ ...shape, modelLatencySeconds: 20 }, inputs);
    const fast = runCost(shape, inputs);

    // Assess: 3 turns × 10 s more at 1 GB.
    expect(slow.totalUsd - fast.totalUsd).toBeCloseTo(30 * AWS_PRICES_US_EAST_1.lambdaGbSecond, 12);
  });

  it("counts a turn's CPU at the Turn function's share of a vCPU: the same GB-s at any memory below one", () => {
    const noWait = { ...shape, gatedTurns: 0, modelLatencySeconds: 0 };
    const turnGbSeconds = (turnMb: number, turnCpuMsPerTurn: number) =>
      runCost(noWait, {
        profile,
        prices: AWS_PRICES_US_EAST_1,
        memory: { turnMb, otherMb: 512 },
        assumptions: { turnCpuMsPerTurn, runsPerHour: 1 },
      }).lines.find((line) => line.item === 'Lambda compute')!.quantity;
    const cpuOf = (turnMb: number) => turnGbSeconds(turnMb, 100) - turnGbSeconds(turnMb, 0);

    // 3 turns × 100 ms at 256/1769 of a vCPU = 2.073 s of wall time, × 0.25 GB; the same at 128 MB.
    expect(cpuOf(256)).toBeCloseTo((0.3 * 1769) / 1024, 10);
    expect(cpuOf(128)).toBeCloseTo(cpuOf(256), 10);
    // Above 1,769 MB a turn runs on one full vCPU (Node.js runs it on one thread): 0.3 s at 2 GB.
    expect(cpuOf(2048)).toBeCloseTo(0.3 * 2, 10);
  });
});

describe('Function: runCost, a trigger start and cold turns', () => {
  const inputs = { profile, prices: AWS_PRICES_US_EAST_1, memory };
  const byItem = (lines: { item: string; quantity: number }[]) =>
    Object.fromEntries(lines.map((line) => [line.item, line.quantity]));

  it("adds a trigger's measured parts to the API start's", () => {
    // Act
    const api = countsFor(shape, profile);
    const event = countsFor({ ...shape, start: 'event' }, profile);

    // Assess: fixed 8 + 3 turns × 4 + 2 calls × 3 + 1 gated × 1 more WRU; the gated call's read.
    expect(event.writeUnits - api.writeUnits).toBe(8 + 12 + 6 + 1);
    expect(event.readUnits - api.readUnits).toBe(2);
    expect(event.dynamoReads - api.dynamoReads).toBe(1);
    expect(countsFor({ ...shape, start: 'schedule' }, profile).writeUnits - api.writeUnits).toBe(4);
  });

  it('starts a triggered run without an API request: the schedule or the event is priced instead', () => {
    // Act
    const api = byItem(runCost(shape, inputs).lines);
    const schedule = byItem(runCost({ ...shape, start: 'schedule' }, inputs).lines);
    const event = byItem(runCost({ ...shape, start: 'event' }, inputs).lines);

    // Assess: the gated call's page and decision are API requests whatever started the run.
    expect(api['API Gateway (HTTP API)']).toBe(3);
    expect(schedule['API Gateway (HTTP API)']).toBe(2);
    expect(schedule['EventBridge Scheduler']).toBe(1);
    expect(event['EventBridge custom events']).toBe(1);
    expect('EventBridge Scheduler' in api || 'EventBridge custom events' in api).toBe(false);
    expect(schedule['Lambda requests']).toBe(api['Lambda requests']);
  });

  it('counts the messages new containers read: the transcript of every turn after the first, not one after a decision', () => {
    // 1 + 2k messages at turn k: turns 1–4 of a five-turn run read 3 + 5 + 7 + 9.
    expect(coldMessageReads({ ...shape, turns: 5, toolCalls: 4, gatedTurns: 0 })).toBe(24);
    expect(coldMessageReads({ ...shape, turns: 1, toolCalls: 0, gatedTurns: 0 })).toBe(0);
    // A gated call's next turn reads its transcript on any container (measured): turn 1 adds none.
    expect(coldMessageReads({ ...shape, turns: 2, toolCalls: 1, gatedTurns: 1 })).toBe(0);
    expect(coldMessageReads({ ...shape, turns: 3, toolCalls: 2, gatedTurns: 1 })).toBe(5);
  });

  it('adds per cold turn its version read, and the messages it reads', () => {
    // Act
    const warm = countsFor(shape, profile);
    const cold = countsFor({ ...shape, coldTurns: true }, profile);

    // Assess: 3 turns × 1 RRU and 1 read, 5 messages (turn 2) × 0.5 RRU.
    expect(cold.readUnits - warm.readUnits).toBe(3 + 2.5);
    expect(cold.dynamoReads - warm.dynamoReads).toBe(3);
    expect(cold.writeUnits).toBe(warm.writeUnits);
  });

  it("bills each cold turn's INIT and first-turn CPU at the Turn's CPU share, and a model-key read per turn", () => {
    // Prepare: at 1,000 runs an hour a warm Turn reads the key less than once per turn.
    const assumptions = { runsPerHour: 1000, turnInitCpuMs: 400, coldTurnCpuMs: 100 };
    const cost = (coldTurns: boolean) =>
      byItem(runCost({ ...shape, coldTurns }, { ...inputs, assumptions }).lines);

    // Act
    const warm = cost(false);
    const cold = cost(true);

    // Assess: 3 turns × (400 + 100 − 25) ms of CPU at 1024/1769 of a vCPU, at 1 GB.
    expect(cold['Lambda compute']! - warm['Lambda compute']!).toBeCloseTo((3 * 0.475 * 1769) / 1024, 10);
    // One read per turn (each container composes its model), 3 per gated call as before.
    expect(cold['Secrets Manager (5-min cache)']).toBe(3 + 3);
    expect(warm['Secrets Manager (5-min cache)']).toBeLessThan(3 + 3);
  });

  it("reproduces what the bench measured for the five-turn run's cold turns: 29 RRU more", () => {
    // npm run bench:cost-profile: the five-turn run read 20 RRU on a warm container, 49 on a new one per turn.
    const five = { turns: 5, toolCalls: 4, gatedTurns: 0, modelLatencySeconds: 8 };
    expect(
      countsFor({ ...five, coldTurns: true }, MEASURED_PROFILE).readUnits -
        countsFor(five, MEASURED_PROFILE).readUnits,
    ).toBe(29);
  });
});

describe('Function: turnSecretReads', () => {
  // 3 turns of 10 s: 30 s of Turn per run.
  const reads = (runsPerHour: number) =>
    turnSecretReads(shape, 30, { ...DEFAULT_ASSUMPTIONS, runsPerHour, secretCacheSeconds: 300 });

  it('reads once per invocation when a container sees less than one invocation per cache lifetime', () => {
    expect(reads(1)).toBe(3);
  });

  it('shares one read per cache lifetime among the runs of a busy container', () => {
    // 100 runs × 30 s = 3,000 s an hour: one container, 12 reads an hour.
    expect(reads(100)).toBeCloseTo(0.12, 10);
    // 1,200 runs × 30 s = 10 containers, 120 reads an hour: per run, Turn seconds ÷ lifetime.
    expect(reads(1200)).toBeCloseTo(30 / 300, 10);
  });
});

describe('Function: xrayTraces', () => {
  it("counts a run with its starting request as one trace, the jobs sweep's run-ended invocation as one, and two per gated call", () => {
    expect(xrayTraces({ ...shape, gatedTurns: 0 })).toBe(2);
    expect(xrayTraces({ ...shape, gatedTurns: 2 })).toBe(6);
  });
});

describe('Function: xraySampledShare', () => {
  it('records every trace up to one a second, then the first each second and 5% of the rest', () => {
    expect(xraySampledShare(0.03)).toBe(1);
    expect(xraySampledShare(1)).toBe(1);
    // 21 a second: 1 + 5% of 20 = 2 recorded.
    expect(xraySampledShare(21)).toBeCloseTo(2 / 21, 12);
  });

  it('prices fewer traces per run above one run a second', () => {
    const inputs = { profile, prices: AWS_PRICES_US_EAST_1, memory };
    const xray = (runsPerHour: number) =>
      runCost({ ...shape, gatedTurns: 0 }, { ...inputs, assumptions: { runsPerHour } }).lines.find((line) =>
        line.item.startsWith('X-Ray'),
      )?.quantity;

    expect(xray(100)).toBe(2);
    // 18,000 runs an hour: 10 traces a second, 1 + 0.45 recorded, 0.29 per run.
    expect(xray(18_000)).toBeCloseTo(0.29, 12);
  });
});

describe('Function: shapeOf', () => {
  it('defaults to five turns at 8 s, each but the last with one tool call', () => {
    expect(shapeOf({})).toEqual({
      turns: 5,
      toolCalls: 4,
      gatedTurns: 0,
      modelLatencySeconds: 8,
      start: 'api',
      coldTurns: false,
    });
  });

  it('takes a schedule or an event as the start, and cold turns', () => {
    expect(shapeOf({ trigger: 'schedule' }).start).toBe('schedule');
    expect(shapeOf({ trigger: 'event', 'cold-turns': true })).toMatchObject({
      start: 'event',
      coldTurns: true,
    });
  });

  it.each([
    [{ turns: '0' }, '--turns'],
    [{ turns: 'five' }, '--turns'],
    [{ 'tool-calls': '-1' }, '--tool-calls'],
    [{ turns: '1', 'tool-calls': '1' }, '--tool-calls'],
    [{ 'gated-turns': '5' }, '--gated-turns'],
    [{ 'model-latency': '' }, '--model-latency'],
    [{ trigger: 'api' }, '--trigger'],
    [{ trigger: 'cron' }, '--trigger'],
  ])('refuses %j naming %s', (values, flag) => {
    expect(() => shapeOf(values)).toThrow(CostUsageError);
    expect(() => shapeOf(values)).toThrow(flag);
  });
});

describe('Command: wf cost', () => {
  it('prints the AWS lines per 1,000 runs, the total without tokens, and the tokens apart', async () => {
    // Prepare
    const out: string[] = [];
    const io = {
      stdout: (text: string) => out.push(text),
      stderr: (text: string) => out.push(text),
      env: {},
    };

    // Act
    const status = await main(
      ['cost', '--turns', '5', '--model-latency', '8', '--turn-memory-mb', '1024'],
      io,
    );

    // Assess
    expect(status).toBe(0);
    expect(out).toContainEqual(
      expect.stringMatching(/^AWS cost per 1,000 runs, us-east-1 list prices as of \d{4}-\d{2}-\d{2}/),
    );
    expect(out).toContainEqual(
      expect.stringMatching(/^Step Functions state transitions +\d+ transitions +\$\d+\.\d{4}$/),
    );
    expect(out).toContainEqual(expect.stringMatching(/^total, excluding model tokens +\$\d+\.\d{4}$/));
    expect(out).toContainEqual(
      expect.stringMatching(/^model tokens, apart \(claude-sonnet-5-5 from the model price table/),
    );
  });

  it('prints exactly the sample docs/cli.md shows for `wf cost` with no options', async () => {
    const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const sample = /With no options:\n\n```text\n([\s\S]*?)\n```/.exec(doc)?.[1];
    const out: string[] = [];
    const io = {
      stdout: (text: string) => out.push(text),
      stderr: (text: string) => out.push(text),
      env: {},
    };

    expect(await main(['cost'], io)).toBe(0);
    expect(out.join('\n').trimEnd()).toBe(sample);
  });

  it.each([
    ['--cold-turns', ['--cold-turns']],
    ['--trigger schedule', ['--trigger', 'schedule']],
    ['--trigger event', ['--trigger', 'event']],
  ])('prints exactly the sample docs/cli.md shows for `wf cost %s`', async (flags, args) => {
    const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const sample = new RegExp(`With \`${flags}\`:\n\n\`\`\`text\n([\\s\\S]*?)\n\`\`\``).exec(doc)?.[1];
    const out: string[] = [];
    const io = {
      stdout: (text: string) => out.push(text),
      stderr: (text: string) => out.push(text),
      env: {},
    };

    expect(sample).toBeDefined();
    expect(await main(['cost', ...args], io)).toBe(0);
    expect(out.join('\n').trimEnd()).toBe(sample);
  });

  it('exits 2 naming the flag for a bad shape', async () => {
    // Prepare
    const err: string[] = [];
    const io = { stdout: () => {}, stderr: (text: string) => err.push(text), env: {} };

    // Act
    const status = await main(['cost', '--gated-turns', '9'], io);

    // Assess
    expect(status).toBe(2);
    expect(err[0]).toContain('--gated-turns');
  });
});
