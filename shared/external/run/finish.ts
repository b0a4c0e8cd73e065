/**
 * `ExternalFinish`: the engine reported success. The result artifact (`resultArtifact`) is opened through the
 * adapter, which verifies path, size and SHA-256 against the engine's manifest before handing out a byte; a
 * mismatch rejects it and the run ends `failed` keeping the evidence (on the run and in the audit chain).
 * A verified artifact becomes the run's result; the run ends `done` under its live policy (live-policy.ts:
 * disabled, deleted or withdrawn since → `denied`, `policy_denied`, the result kept, nothing delivered), then
 * by mode: `live` → Deliver to the destination, `report_only` → the result and artifact are recorded, nothing
 * is published.
 */
import { cutText } from '../../core/byte-caps.ts';
import { isoAt } from '../../core/engine.ts';
import { ArtifactRejectedError, IncarnationMismatchError } from '../errors.ts';
import { underLivePolicy } from './live-policy.ts';
import type { ExternalNext, ExternalRunDeps } from './ports.ts';
import { deniedEnding, endExternalRun, externalAudit, loadExternalRun } from './records.ts';

/** The most of an artifact kept as the run's result text (the run item stays far below 400 KB). */
export const MAX_RESULT_BYTES = 64 * 1024;

export async function finishExternal(deps: ExternalRunDeps, runId: string): Promise<ExternalNext> {
  const loaded = await loadExternalRun(deps, runId);
  if (!loaded) {
    // Ended before (a retried Finish): a live run that succeeded still goes to Deliver (idempotent there).
    const run = await deps.store.getRun(runId);
    const deliver = run?.status === 'done' && run.external?.mode === 'live';
    return { runId, next: deliver ? 'deliver' : 'stop' };
  }
  const { run, definition } = loaded;
  const { key, incarnation } = run.external;
  if (incarnation === undefined) throw new Error(`run ${runId}: finishing before the engine admitted it`);
  const summary = run.external.outcome?.summary ?? '';
  let result = { text: summary };
  let artifact: { path: string; size: number; sha256: string } | undefined;
  if (definition.resultArtifact !== undefined) {
    try {
      const opened = await deps
        .adapterFor(run, definition)
        .openArtifact(key, incarnation, definition.resultArtifact);
      artifact = opened.entry;
      const bytes = opened.bytes.subarray(0, MAX_RESULT_BYTES);
      const more =
        opened.bytes.byteLength > MAX_RESULT_BYTES
          ? `\n[… ${opened.bytes.byteLength - MAX_RESULT_BYTES} more bytes in the artifact]`
          : '';
      result = { text: new TextDecoder().decode(bytes) + more };
    } catch (error) {
      if (error instanceof ArtifactRejectedError) {
        await endExternalRun(deps, run, {
          status: 'failed',
          stopReason: 'error',
          error: { name: error.name, message: cutText(error.message, 1000) },
          patch: { rejectedArtifact: error.evidence },
          audit: [externalAudit('artifact_rejected', { key, evidence: error.evidence })],
        });
        return { runId, next: 'stop' };
      }
      if (error instanceof IncarnationMismatchError) {
        await endExternalRun(deps, run, {
          status: 'failed',
          stopReason: 'error',
          error: { name: error.name, message: cutText(error.message, 1000) },
          patch: { last: { state: 'incarnation_refused', at: isoAt(deps.clock) } },
          audit: [
            externalAudit('incarnation_refused', { key, expected: error.expected, actual: error.actual }),
          ],
        });
        return { runId, next: 'stop' };
      }
      throw error;
    }
  }
  const verified = artifact ? [externalAudit('artifact_verified', { key, ...artifact })] : [];
  // Ended `done` only under the live policy (live-policy.ts); in the mode it leaves (a later version's may be
  // stricter), which decides whether the result is delivered.
  const ended = await underLivePolicy(deps.store, run, ({ policy, patch, audit, condition }) =>
    endExternalRun(deps, run, {
      status: 'done',
      result,
      patch: { ...patch, ...(artifact ? { artifact } : {}) },
      audit: [
        ...audit,
        ...verified,
        ...(policy.mode === 'live' ? [] : [externalAudit('reported', { key, published: false })]),
      ],
      ...condition,
    }),
  );
  if (!ended.allowed) {
    // The work is done and its result kept as evidence; nothing is delivered.
    await endExternalRun(
      deps,
      run,
      deniedEnding(ended.reason, { result, ...(artifact ? { patch: { artifact } } : {}), audit: verified }),
    );
    return { runId, next: 'stop' };
  }
  return { runId, next: ended.policy.mode === 'live' ? 'deliver' : 'stop' };
}
