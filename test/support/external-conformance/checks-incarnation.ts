/** Conformance checks of incarnations: a recreated execution (same key, new incarnation) is refused, never adopted. */
import { equal, notEqual } from 'node:assert/strict';
import { IncarnationMismatchError } from '../../../shared/external/index.ts';
import { type ConformanceCheck, rejection } from './harness.ts';

const recreated = (method: 'observe' | 'cancel' | 'listArtifacts' | 'openArtifact'): ConformanceCheck => ({
  name: `${method} on a recreated execution is refused as an incarnation mismatch`,
  async run(harness) {
    harness.script('conf-recreated', { running: 3, artifacts: [{ path: 'a.txt', content: 'a' }] });
    const { execution } = await harness.adapter.start('conf-recreated', { n: 1 });
    harness.recreate();
    const { adapter } = harness;
    const call = {
      observe: () => adapter.observe('conf-recreated', execution.incarnation),
      cancel: () => adapter.cancel('conf-recreated', execution.incarnation),
      listArtifacts: () => adapter.listArtifacts('conf-recreated', execution.incarnation),
      openArtifact: () => adapter.openArtifact('conf-recreated', execution.incarnation, 'a.txt'),
    }[method];
    const error = await rejection(call(), IncarnationMismatchError);
    equal(error.expected, execution.incarnation);
    notEqual(error.actual, execution.incarnation);
  },
});

export const incarnationChecks: ConformanceCheck[] = [
  recreated('observe'),
  recreated('cancel'),
  recreated('listArtifacts'),
  recreated('openArtifact'),
];
