import { describe, expect, it } from 'vitest';
import {
  type AuditChainFailureReason,
  type AuditEntry,
  auditGenesisHash,
  computeAuditEntryHash,
  verifyAuditChain,
} from '../../shared/audit/index.ts';
import { buildChain } from './fixtures.ts';

const run = { owner: 'team-a', runId: 'run_1' };

/** Recomputes an entry's hash after an edit, as an attacker with write access to the store could. */
function reseal(entry: AuditEntry): AuditEntry {
  const { hash: _old, ...body } = entry;
  return { ...body, hash: computeAuditEntryHash(body) };
}

/** Replaces entry `seq` with `edit(entry)`. */
function edit(seq: number, change: (entry: AuditEntry) => AuditEntry) {
  return (entries: AuditEntry[]) => entries.map((entry) => (entry.seq === seq ? change(entry) : entry));
}

type Case = [string, (entries: AuditEntry[]) => unknown[], number, AuditChainFailureReason];

const cases: Case[] = [
  ['edit data', edit(2, (e) => ({ ...e, data: { ...e.data, tool: 'delete_all' } })), 2, 'hash_mismatch'],
  ['edit type', edit(3, (e) => ({ ...e, type: 'approval_expired' })), 3, 'hash_mismatch'],
  ['edit at', edit(1, (e) => ({ ...e, at: '2030-01-01T00:00:00.000Z' })), 1, 'hash_mismatch'],
  ['edit actor', edit(4, (e) => ({ ...e, actor: 'approver:mallory' })), 4, 'hash_mismatch'],
  ['edit hash', edit(0, (e) => ({ ...e, hash: '0'.repeat(64) })), 0, 'hash_mismatch'],
  ['edit prevHash', edit(5, (e) => ({ ...e, prevHash: '0'.repeat(64) })), 5, 'hash_mismatch'],
  [
    'edit data and recompute its hash',
    edit(2, (e) => reseal({ ...e, data: { tool: 'delete_all' } })),
    3,
    'prev_hash_mismatch',
  ],
  ['add an unhashed field', edit(2, (e) => ({ ...e, note: 'x' })), 2, 'schema'],
  ['delete an entry', (es) => es.filter((e) => e.seq !== 3), 3, 'seq_gap'],
  ['delete the first entry', (es) => es.slice(1), 0, 'seq_gap'],
  ['duplicate an entry', (es) => [...es.slice(0, 3), es[2], ...es.slice(3)], 3, 'seq_gap'],
  ['reorder two entries', (es) => [es[0], es[1], es[3], es[2], es[4], es[5]], 2, 'seq_gap'],
  [
    'reorder two entries and swap their seq fields',
    (es) => [es[0], es[1], { ...es[3]!, seq: 2 }, { ...es[2]!, seq: 3 }, es[4], es[5]],
    2,
    'hash_mismatch',
  ],
  [
    'reorder two entries, swap seq and recompute both hashes',
    (es) => [es[0], es[1], reseal({ ...es[3]!, seq: 2 }), reseal({ ...es[2]!, seq: 3 }), es[4], es[5]],
    2,
    'prev_hash_mismatch',
  ],
  ['splice an entry from another run', (es) => es.with(3, buildChain('team-a', 'run_2')[3]!), 3, 'wrong_run'],
  [
    'splice an entry from another run, recomputed onto this chain',
    (es) => es.with(3, reseal({ ...buildChain('team-a', 'run_2')[3]!, prevHash: es[2]!.hash })),
    3,
    'wrong_run',
  ],
  [
    'splice an entry from another run, relabelled and recomputed',
    (es) =>
      es.with(3, reseal({ ...buildChain('team-a', 'run_2')[3]!, runId: 'run_1', prevHash: es[2]!.hash })),
    4,
    'prev_hash_mismatch',
  ],
  [
    'splice an entry from another owner',
    (es) => es.with(1, buildChain('team-b', 'run_1')[1]!),
    1,
    'wrong_owner',
  ],
  ['change the owner of an entry', edit(2, (e) => ({ ...e, owner: 'team-b' })), 2, 'wrong_owner'],
  ['change the owner and recompute', edit(2, (e) => reseal({ ...e, owner: 'team-b' })), 2, 'wrong_owner'],
  [
    'relabel every entry to the run',
    (_) => buildChain('team-a', 'run_2').map((e) => ({ ...e, runId: 'run_1' })),
    0,
    'hash_mismatch',
  ],
  [
    'move a whole chain to the run, recomputing every hash but keeping its links',
    (_) => buildChain('team-a', 'run_2').map((e) => reseal({ ...e, runId: 'run_1' })),
    0,
    'prev_hash_mismatch',
  ],
];

describe('verifyAuditChain on a tampered chain', () => {
  const table = cases.map(([label, tamper, seq, reason]) => ({ label, tamper, seq, reason }));

  it.each(table)('$label: names seq $seq as the first broken entry ($reason)', ({ tamper, seq, reason }) => {
    // Prepare
    const entries = tamper(buildChain());
    // Act
    const result = verifyAuditChain(entries, run);
    // Assess
    expect(result).toMatchObject({ ok: false, firstBrokenSeq: seq, reason });
    expect(result.ok === false && result.message).toContain(`seq ${seq}`);
  });

  it('reports the array position as index when verifying a suffix', () => {
    // Prepare
    const entries = buildChain();
    const suffix = entries.slice(2).filter((e) => e.seq !== 4);
    // Act
    const result = verifyAuditChain(suffix, { ...run, start: { seq: 2, prevHash: entries[1]!.hash } });
    // Assess
    expect(result).toMatchObject({ ok: false, firstBrokenSeq: 4, index: 2, reason: 'seq_gap' });
  });
});

describe('verifyAuditChain against an anchored head', () => {
  const anchored = (entries: AuditEntry[]) => ({ seq: entries[5]!.seq, hash: entries[5]!.hash });

  it('accepts the chain whose last entry is the anchored head', () => {
    // Prepare
    const entries = buildChain();
    // Act / Assess
    expect(verifyAuditChain(entries, { ...run, expectedHead: anchored(entries) }).ok).toBe(true);
  });

  it.each<[string, number, number, (entries: AuditEntry[]) => AuditEntry[]]>([
    ['drop the last entry', 5, 5, (es) => es.slice(0, 5)],
    ['drop every entry', 0, 0, (_) => []],
    [
      'rewrite the last entry and recompute its hash',
      5,
      5,
      (es) => es.with(5, reseal({ ...es[5]!, data: {} })),
    ],
    [
      'delete an entry and recompute every later hash and link',
      5,
      5,
      (es) => {
        const kept = es.filter((e) => e.seq !== 3);
        const out = kept.slice(0, 3);
        for (const entry of kept.slice(3))
          out.push(reseal({ ...entry, seq: out.length, prevHash: out.at(-1)!.hash }));
        return out;
      },
    ],
    [
      'append an entry after the anchored head',
      6,
      6,
      (es) => [...es, reseal({ ...es[5]!, seq: 6, prevHash: es[5]!.hash })],
    ],
  ])('%s: names seq %i (index %i) as head_mismatch', (_label, seq, index, tamper) => {
    // Prepare
    const entries = buildChain();
    // Act
    const result = verifyAuditChain(tamper(entries), { ...run, expectedHead: anchored(entries) });
    // Assess
    expect(result).toMatchObject({ ok: false, firstBrokenSeq: seq, index, reason: 'head_mismatch' });
  });

  it('cannot detect a dropped last entry without an anchor (why the owner chain exists)', () => {
    // Act
    const result = verifyAuditChain(buildChain().slice(0, 5), run);
    // Assess
    expect(result.ok).toBe(true);
    expect(auditGenesisHash(run)).not.toBe(result.ok && result.head);
  });
});
