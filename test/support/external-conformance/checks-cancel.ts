/** Conformance checks of `cancel`: requested, acknowledged and stopped are reported apart. */
import { deepStrictEqual, equal } from 'node:assert/strict';
import type { ExecutionScript } from '../../../shared/external/fixture-engine/index.ts';
import type { ConformanceCheck, ConformanceHarness } from './harness.ts';

async function cancelled(harness: ConformanceHarness, key: string, script: ExecutionScript) {
  harness.script(key, script);
  const { execution } = await harness.adapter.start(key, { key });
  const facts = await harness.adapter.cancel(key, execution.incarnation);
  return { facts, incarnation: execution.incarnation };
}

export const cancelChecks: ConformanceCheck[] = [
  {
    name: 'cancelling an execution that stops at once reports requested, acknowledged and stopped',
    async run(harness) {
      const { facts, incarnation } = await cancelled(harness, 'conf-stop', { running: 5, abort: 'stop' });
      deepStrictEqual(facts, { requested: true, acknowledged: true, stopped: true });
      const after = await harness.adapter.observe('conf-stop', incarnation);
      equal(after.state === 'terminal' && after.outcome, 'cancelled');
    },
  },
  {
    name: 'an acknowledged cancellation that has not stopped yet is not reported as stopped',
    async run(harness) {
      const { facts, incarnation } = await cancelled(harness, 'conf-later', { running: 5, abort: 'later' });
      deepStrictEqual(facts, { requested: true, acknowledged: true, stopped: false });
      const after = await harness.adapter.observe('conf-later', incarnation);
      equal(after.state === 'terminal' && after.outcome, 'cancelled');
    },
  },
  {
    name: 'a cancellation the engine declines is requested, not acknowledged, not stopped',
    async run(harness) {
      const { facts } = await cancelled(harness, 'conf-ignore', { running: 5, abort: 'ignore' });
      deepStrictEqual(facts, { requested: true, acknowledged: false, stopped: false });
    },
  },
  {
    name: 'a cancellation that gets no answer claims neither acknowledgement nor stop',
    async run(harness) {
      harness.script('conf-cancel-net', { running: 5 });
      const { execution } = await harness.adapter.start('conf-cancel-net', { n: 1 });
      harness.fault('unreachable');
      const facts = await harness.adapter.cancel('conf-cancel-net', execution.incarnation);
      equal(facts.acknowledged, false);
      equal(facts.stopped, false);
    },
  },
];
