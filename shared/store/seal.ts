/** Seals a step's audit inputs onto a run's chain, in order, from the head the run item records. */
import { type AuditEntry, sealAuditEntry } from '../audit/index.ts';
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
        actor: input.actor,
        data: input.data,
      },
      head,
    );
    seq += 1;
    head = entry.hash;
    return entry;
  });
  return { entries, audit: { seq, head } };
}
