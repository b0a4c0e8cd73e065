/** Conformance checks of `start`: keyed admission, deduplication, conflict, a lost answer retried. */
import { deepStrictEqual, equal, notEqual } from 'node:assert/strict';
import { ExternalConflictError, ExternalTransportError } from '../../../shared/external/index.ts';
import { type ConformanceCheck, rejection } from './harness.ts';

const payload = { task: 'summarise', inputs: { ticket: 42, tags: ['a', 'b'] } };
const reordered = { inputs: { tags: ['a', 'b'], ticket: 42 }, task: 'summarise' };

export const admissionChecks: ConformanceCheck[] = [
  {
    name: 'start admits a new key as a new execution',
    async run({ adapter }) {
      const started = await adapter.start('conf-new', payload);
      equal(started.deduplicated, false);
      equal(started.execution.key, 'conf-new');
      equal(started.execution.engine, adapter.engine);
      notEqual(started.execution.incarnation, '');
    },
  },
  {
    name: 'start with the same key and the same payload answers the existing execution (deduplicated)',
    async run({ adapter }) {
      const first = await adapter.start('conf-dedupe', payload);
      const again = await adapter.start('conf-dedupe', reordered);
      equal(again.deduplicated, true);
      deepStrictEqual(again.execution, first.execution);
    },
  },
  {
    name: 'start with the same key and another payload is a conflict',
    async run({ adapter }) {
      await adapter.start('conf-conflict', payload);
      const error = await rejection(
        adapter.start('conf-conflict', { ...payload, task: 'other' }),
        ExternalConflictError,
      );
      equal(error.key, 'conf-conflict');
    },
  },
  {
    name: 'a start whose answer was lost is retried into the same execution, not a second one',
    async run(harness) {
      harness.fault('lose_next_dispatch_answer');
      const lost = await rejection(harness.adapter.start('conf-lost', payload), ExternalTransportError);
      equal(lost.sent, true, 'the engine may have admitted it: the error must say the request was sent');
      harness.restore();
      const retried = await harness.adapter.start('conf-lost', payload);
      equal(retried.deduplicated, true);
    },
  },
];
