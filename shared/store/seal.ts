/**
 * Seals a step's audit inputs onto a run's chain, in order, from the head the run item records. Their text is
 * made well-formed first: RFC 8785 canonical JSON refuses a lone UTF-16 surrogate, so an entry carrying one
 * (outside text that no cut or check made well-formed) would fail its commit on every retry, and the run with it.
 * Callers cut outside text with `cutText` (core/byte-caps.ts); this is the last line.
 */
import { type AuditEntry, sealAuditEntry } from '../audit/index.ts';
import { mapStrings } from '../core/map-strings.ts';
import type { AuditInput } from '../core/store-port.ts';
import type { Run } from '../schemas/run.ts';

export function sealAuditInputs(
  run: Pick<Run, 'owner' | 'runId' | 'audit'>,
  inputs: AuditInput[],
  at: string,
): { entries: AuditEntry[]; audit: Run['audit'] } {
  let { seq, head } = run.audit;
  const entries = inputs.map((input) => {
    const entry = sealAuditEntry(
      {
        schemaVersion: 1,
        owner: run.owner,
        runId: run.runId,
        seq,
        at,
        type: input.type,
        actor: input.actor.toWellFormed(),
        data: mapStrings(input.data, (text) => text.toWellFormed()) as AuditInput['data'],
      },
      head,
    );
    seq += 1;
    head = entry.hash;
    return entry;
  });
  return { entries, audit: { seq, head } };
}
