/** Conformance checks of `observe`: every state maps, and a failed transport is `unknown`, never `failed`. */
import { deepStrictEqual, equal } from 'node:assert/strict';
import type { Observation, WaitReason } from '../../../shared/external/index.ts';
import { ExternalNotFoundError } from '../../../shared/external/index.ts';
import { type ConformanceCheck, type ConformanceHarness, rejection } from './harness.ts';

/** The observation without its timestamp. */
const bare = ({ observedAtMs: _at, ...rest }: Observation) => rest;

async function states(harness: ConformanceHarness, key: string, count: number) {
  const { execution } = await harness.adapter.start(key, { key });
  const seen: Omit<Observation, 'observedAtMs'>[] = [];
  for (let i = 0; i < count; i++) seen.push(bare(await harness.adapter.observe(key, execution.incarnation)));
  return seen;
}

const waiting = (reason: WaitReason): ConformanceCheck => ({
  name: `a wait for ${reason} is waiting with its reason, then the run goes on`,
  async run(harness) {
    harness.script('conf-wait', { waiting: { reason, observes: 1 }, summary: 'ok' });
    const seen = await states(harness, 'conf-wait', 2);
    deepStrictEqual(seen[0], { state: 'waiting', reason });
    deepStrictEqual(seen[1], { state: 'terminal', outcome: 'succeeded', summary: 'ok' });
  },
});

export const statusChecks: ConformanceCheck[] = [
  {
    name: 'observe maps accepted, running and a success with its summary',
    async run(harness) {
      harness.script('conf-life', { accepted: 1, running: 1, summary: 'all done' });
      const seen = await states(harness, 'conf-life', 3);
      equal(seen[0]?.state, 'accepted');
      equal(seen[1]?.state, 'running');
      deepStrictEqual(seen[2], { state: 'terminal', outcome: 'succeeded', summary: 'all done' });
    },
  },
  waiting('capacity'),
  waiting('human'),
  waiting('budget'),
  {
    name: 'observe maps a failure and a cancellation the engine reports, with their summaries',
    async run(harness) {
      harness.script('conf-failed', { outcome: 'failed', summary: 'tests failed' });
      harness.script('conf-cancelled', { outcome: 'cancelled', summary: 'operator stopped it' });
      deepStrictEqual(await states(harness, 'conf-failed', 1), [
        { state: 'terminal', outcome: 'failed', summary: 'tests failed' },
      ]);
      deepStrictEqual(await states(harness, 'conf-cancelled', 1), [
        { state: 'terminal', outcome: 'cancelled', summary: 'operator stopped it' },
      ]);
    },
  },
  {
    name: 'a transport failure is unknown, never failed, and observing goes on once the engine is back',
    async run(harness) {
      harness.script('conf-net', { running: 2 });
      const { execution } = await harness.adapter.start('conf-net', { n: 1 });
      harness.fault('unreachable');
      const during = await harness.adapter.observe('conf-net', execution.incarnation);
      equal(during.state, 'unknown');
      equal(during.state === 'unknown' && during.cause, 'transport');
      harness.restore();
      equal((await harness.adapter.observe('conf-net', execution.incarnation)).state, 'running');
    },
  },
  {
    name: 'an engine answering with a server error is unknown, never failed',
    async run(harness) {
      harness.script('conf-5xx', { running: 2 });
      const { execution } = await harness.adapter.start('conf-5xx', { n: 1 });
      harness.fault('server_error');
      const during = await harness.adapter.observe('conf-5xx', execution.incarnation);
      equal(during.state, 'unknown');
    },
  },
  {
    name: 'observing a key the engine never admitted is not found',
    async run({ adapter }) {
      await rejection(adapter.observe('conf-never', 'any-incarnation'), ExternalNotFoundError);
    },
  },
];
