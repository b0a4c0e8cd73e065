/**
 * Conformance checks of artifacts: a good one is handed out verified; a size, digest or path that disagrees
 * with the manifest is rejected with the evidence (what came, what the manifest said), and nothing else.
 */

import { deepStrictEqual, equal, notEqual } from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Corruption } from '../../../shared/external/fixture-engine/index.ts';
import { ArtifactRejectedError } from '../../../shared/external/index.ts';
import { type ConformanceCheck, type ConformanceHarness, rejection } from './harness.ts';

const content = '{"answer":42,"items":["a","b"]}\n';
const entry = {
  path: 'out/result.json',
  size: Buffer.byteLength(content),
  sha256: createHash('sha256').update(content).digest('hex'),
};

async function finished(harness: ConformanceHarness, key: string, corrupt?: Corruption) {
  const artifact =
    corrupt === undefined ? { path: entry.path, content } : { path: entry.path, content, corrupt };
  harness.script(key, { artifacts: [artifact] });
  const { execution } = await harness.adapter.start(key, { key });
  await harness.adapter.observe(key, execution.incarnation);
  return execution.incarnation;
}

const corrupted = (corrupt: Corruption, reason: string): ConformanceCheck => ({
  name: `an artifact whose ${corrupt} disagrees with the manifest is rejected as ${reason}, evidence kept`,
  async run(harness) {
    const incarnation = await finished(harness, `conf-art-${corrupt}`, corrupt);
    const error = await rejection(
      harness.adapter.openArtifact(`conf-art-${corrupt}`, incarnation, entry.path),
      ArtifactRejectedError,
    );
    equal(error.evidence.reason, reason);
    deepStrictEqual(error.evidence.expected, entry);
    const { received } = error.evidence;
    notEqual(received.sha256, null, 'the digest of what came is kept');
    if (corrupt === 'size') equal(received.size, entry.size + 1);
    if (corrupt === 'digest') notEqual(received.sha256, entry.sha256);
    if (corrupt === 'path') notEqual(received.path, entry.path);
  },
});

export const artifactChecks: ConformanceCheck[] = [
  {
    name: 'the manifest lists each artifact with its path, size and SHA-256',
    async run(harness) {
      const incarnation = await finished(harness, 'conf-manifest');
      deepStrictEqual(await harness.adapter.listArtifacts('conf-manifest', incarnation), [entry]);
    },
  },
  {
    name: 'an artifact matching its manifest entry is handed out with its bytes',
    async run(harness) {
      const incarnation = await finished(harness, 'conf-art-good');
      const artifact = await harness.adapter.openArtifact('conf-art-good', incarnation, entry.path);
      deepStrictEqual(artifact.entry, entry);
      equal(Buffer.from(artifact.bytes).toString('utf8'), content);
      equal(await new Response(artifact.stream()).text(), content);
    },
  },
  corrupted('size', 'size_mismatch'),
  corrupted('digest', 'digest_mismatch'),
  corrupted('path', 'path_mismatch'),
  {
    name: 'a path that is not in the manifest is rejected before anything is fetched',
    async run(harness) {
      const incarnation = await finished(harness, 'conf-art-missing');
      const error = await rejection(
        harness.adapter.openArtifact('conf-art-missing', incarnation, 'out/secret.txt'),
        ArtifactRejectedError,
      );
      deepStrictEqual(error.evidence, {
        reason: 'not_in_manifest',
        expected: undefined,
        received: { path: 'out/secret.txt', size: null, sha256: null },
      });
    },
  },
];
