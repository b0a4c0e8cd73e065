/**
 * The step allowance of one invocation (EXPRESSION_LIMITS.maxStepsPerInvocation, shared/graph/expressions.ts)
 * fits the timeout of each function that evaluates many expressions in one invocation, on the CPU share its
 * memory buys; the CPU backstop of one evaluation (backstopCpuMs) lies past its step budget and within that
 * timeout. The arithmetic of the comments in expressions.ts, against the functions' settings.
 */
import { describe, expect, it } from 'vitest';
import { RUNTIME_FUNCTION_DEFAULTS } from '../../infra/constructs/runtime-function.ts';
import type { HandlerName } from '../../infra/constructs/state-names.ts';
import { FUNCTION_SETTINGS } from '../../infra/constructs/workflow-runtime-props.ts';
import { EXPRESSION_LIMITS } from '../../shared/graph/expressions.ts';

/** The costliest legitimate step `npm run bench:expression-steps` measured (4.1 µs of CPU), rounded up. */
const CPU_US_PER_STEP = 5;
/** Lambda: "At 1,769 MB, a function has the equivalent of one vCPU" (https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html). */
const MB_PER_VCPU = 1769;
/** A Lambda core taken as half as fast as the bench machine's. */
const SLOWER_CORE = 2;
/** Advance decides again after a write conflict: at most this many decisions (shared/graph-run/advance.ts). */
const DECISIONS_PER_ADVANCE = 5;

const settings = (handler: HandlerName) => ({
  timeoutSeconds: FUNCTION_SETTINGS[handler].timeout?.toSeconds() ?? RUNTIME_FUNCTION_DEFAULTS.timeoutSeconds,
  memoryMb: FUNCTION_SETTINGS[handler].memorySize ?? RUNTIME_FUNCTION_DEFAULTS.memorySize,
});

/** Wall-clock seconds of a whole allowance at `memoryMb`, on a core `slower` times slower than the bench's. */
const allowanceSeconds = (memoryMb: number, slower = 1) =>
  (EXPRESSION_LIMITS.maxStepsPerInvocation * CPU_US_PER_STEP * slower) /
  1e6 /
  Math.min(1, memoryMb / MB_PER_VCPU);

describe('the step allowance of one invocation', () => {
  it('takes under half the timeout of each function drawing from it, on a core half as fast', () => {
    // GraphAdvance (conditions, prompts, payloads), GraphService (args, then a decision), HumanTask (context).
    for (const handler of ['graph-advance', 'graph-service', 'human-task'] as const) {
      const { timeoutSeconds, memoryMb } = settings(handler);
      expect(allowanceSeconds(memoryMb, SLOWER_CORE), handler).toBeLessThan(timeoutSeconds / 2);
    }
    // Today: 300,000 × 5 µs = 1.5 s of one vCPU; 512 MB is 512 / 1,769 of one: ~5.2 s, ~10.4 s on the slower core.
    expect(settings('graph-advance')).toEqual({ timeoutSeconds: 30, memoryMb: 512 });
    expect(allowanceSeconds(512)).toBeCloseTo(5.18, 1);
  });

  it('spans every decision of the invocation: five fresh allowances would not fit GraphAdvance on the slower core', () => {
    // Each decision made again after a write conflict counts its own steps and the invocation's
    // (InvocationSteps, test/graph/invocation-steps.test.ts): all five together take one allowance, ~10.4 s
    // on the slower core. Five allowances of their own would take ~52 s, past the 30 s timeout.
    const { timeoutSeconds, memoryMb } = settings('graph-advance');
    expect(allowanceSeconds(memoryMb, SLOWER_CORE)).toBeLessThan(timeoutSeconds / 2);
    expect(DECISIONS_PER_ADVANCE * allowanceSeconds(memoryMb, SLOWER_CORE)).toBeGreaterThan(timeoutSeconds);
  });
});

describe('the CPU backstop of one evaluation', () => {
  /** CPU seconds of `steps` at the costliest step, on a core `slower` times slower than the bench's. */
  const cpuSeconds = (steps: number, slower = 1) => (steps * CPU_US_PER_STEP * slower) / 1e6;
  const backstopSeconds = EXPRESSION_LIMITS.backstopCpuMs / 1000;

  it('lies at least twice past an evaluation at its step cap on a core half as fast: the step count meets it first', () => {
    // 250,000 × 5 µs × 2 = 2.5 s of CPU; the backstop is 5 s of CPU (not of the clock, which a CPU share stretches).
    expect(cpuSeconds(EXPRESSION_LIMITS.maxSteps, SLOWER_CORE)).toBeCloseTo(2.5, 5);
    expect(2 * cpuSeconds(EXPRESSION_LIMITS.maxSteps, SLOWER_CORE)).toBeLessThanOrEqual(backstopSeconds);
  });

  it("ends one runaway within each function's timeout at the CPU share its memory buys", () => {
    for (const handler of ['graph-advance', 'graph-service', 'human-task'] as const) {
      const { timeoutSeconds, memoryMb } = settings(handler);
      const wallSeconds = backstopSeconds / Math.min(1, memoryMb / MB_PER_VCPU);
      expect(wallSeconds, handler).toBeLessThan(timeoutSeconds);
    }
    // GraphAdvance: 5 s of CPU at 512 / 1,769 of a vCPU is ~17.3 s of its 30 s.
    expect(backstopSeconds / (512 / MB_PER_VCPU)).toBeCloseTo(17.3, 1);
  });
});
