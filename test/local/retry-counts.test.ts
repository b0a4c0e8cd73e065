/**
 * `$$.State.RetryCount` on the local runner (shared/local/sfn/retry-counts.ts): 0 on each entry into a state and
 * +1 per retry, as on AWS; inside a Map, where concurrent iterations of one state share the count, an entry never
 * sets it back, so each iteration's retry still counts above its earlier attempts (the graph waits' fences).
 */
import { describe, expect, it } from 'vitest';
import { RetryCounts } from '../../shared/local/sfn/retry-counts.ts';

const task = { name: 'AgentTask', type: 'Task' };
const event = (type: string, index?: number) => ({
  type,
  timestamp: 0,
  state: task,
  ...(index === undefined ? {} : { index }),
});
const entered = (index?: number) => event('StateEntered', index);
const retried = (index?: number) => event('StateRetried', index);

describe('RetryCounts', () => {
  it('counts from 0 again on each entry into a state outside a Map', async () => {
    const counts = new RetryCounts();
    counts.observe(entered());
    counts.observe(retried());
    expect(await counts.current('AgentTask')).toBe(1);
    counts.observe(entered());
    expect(await counts.current('AgentTask')).toBe(0);
  });

  it("inside a Map, another iteration's entry does not set an iteration's retries back", async () => {
    const counts = new RetryCounts();
    counts.observe(entered(0));
    counts.observe(retried(0));
    counts.observe(retried(0));
    const secondAttemptOfFirst = await counts.current('AgentTask');
    counts.observe(entered(1));
    counts.observe(retried(0));
    expect(await counts.current('AgentTask')).toBeGreaterThan(secondAttemptOfFirst);
  });
});
