import { describe, expect, it } from 'vitest';
import {
  ArtifactRejectedError,
  type ExternalAdapter,
  IncarnationMismatchError,
} from '../../shared/external/index.ts';
import { runConformance } from '../support/external-conformance.ts';
import { fixtureHarness } from '../support/fixture-harness.ts';

/** The defect the issue names: a transport error (`unknown`) turned into a made-up failure. */
const transportAsFailure = (inner: ExternalAdapter): ExternalAdapter => ({
  ...inner,
  engine: inner.engine,
  async observe(key, incarnation) {
    const seen = await inner.observe(key, incarnation);
    return seen.state === 'unknown'
      ? { observedAtMs: seen.observedAtMs, state: 'terminal', outcome: 'failed', summary: seen.detail }
      : seen;
  },
});

/** Adopts a recreated execution instead of refusing it. */
const adoptsIncarnation = (inner: ExternalAdapter): ExternalAdapter => ({
  ...inner,
  engine: inner.engine,
  async observe(key, incarnation) {
    try {
      return await inner.observe(key, incarnation);
    } catch (error) {
      if (error instanceof IncarnationMismatchError) return inner.observe(key, error.actual);
      throw error;
    }
  },
});

/** Hands out an artifact whatever the verification said. */
const skipsVerification = (inner: ExternalAdapter): ExternalAdapter => ({
  ...inner,
  engine: inner.engine,
  async openArtifact(key, incarnation, path) {
    try {
      return await inner.openArtifact(key, incarnation, path);
    } catch (error) {
      if (!(error instanceof ArtifactRejectedError) || error.evidence.expected === undefined) throw error;
      const bytes = new Uint8Array(error.evidence.expected.size);
      return { entry: error.evidence.expected, bytes, stream: () => new Blob([bytes]).stream() };
    }
  },
});

async function failedChecks(wrap: (inner: ExternalAdapter) => ExternalAdapter): Promise<string[]> {
  const results = await runConformance(() => fixtureHarness({ wrap }));
  return results.filter((result) => !result.passed).map((result) => result.name);
}

describe('Conformance kit', () => {
  it('passes every check for the unmodified http-runtime adapter', async () => {
    expect(await failedChecks((inner) => inner)).toEqual([]);
  });

  it('fails an adapter that turns transport errors into failures, on exactly the unknown checks', async () => {
    expect(await failedChecks(transportAsFailure)).toEqual([
      'a transport failure is unknown, never failed, and observing goes on once the engine is back',
      'an engine answering with a server error is unknown, never failed',
    ]);
  });

  it('fails an adapter that adopts a recreated execution', async () => {
    expect(await failedChecks(adoptsIncarnation)).toEqual([
      'observe on a recreated execution is refused as an incarnation mismatch',
    ]);
  });

  it('fails an adapter that hands out artifacts the manifest contradicts', async () => {
    expect(await failedChecks(skipsVerification)).toEqual([
      'an artifact whose size disagrees with the manifest is rejected as size_mismatch, evidence kept',
      'an artifact whose digest disagrees with the manifest is rejected as digest_mismatch, evidence kept',
      'an artifact whose path disagrees with the manifest is rejected as path_mismatch, evidence kept',
    ]);
  });
});
