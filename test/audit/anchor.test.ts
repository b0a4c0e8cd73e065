import { describe, expect, it } from 'vitest';
import {
  AuditEntryError,
  anchoredHead,
  type OwnerAnchor,
  type OwnerChainFailureReason,
  ownerGenesisHash,
  sealOwnerAnchor,
  verifyAuditChain,
  verifyOwnerChain,
} from '../../shared/audit/index.ts';
import { buildChain } from './fixtures.ts';

function buildOwnerChain(owner = 'team-a', runs = ['run_1', 'run_2', 'run_3', 'run_4']): OwnerAnchor[] {
  const anchors: OwnerAnchor[] = [];
  for (const [i, runId] of runs.entries()) {
    const head = buildChain(owner, runId).at(-1)!;
    const at = new Date(Date.UTC(2025, 0, 2, 0, i)).toISOString();
    anchors.push(
      sealOwnerAnchor(anchors.at(-1), { owner, at, runId, runHeadSeq: head.seq, runHead: head.hash }),
    );
  }
  return anchors;
}

describe('sealOwnerAnchor', () => {
  it('starts the owner chain at a genesis hash bound to the owner', () => {
    // Act
    const [first] = buildOwnerChain();
    // Assess
    expect(first).toMatchObject({ seq: 0, prevHash: ownerGenesisHash('team-a') });
    expect(ownerGenesisHash('team-a')).not.toBe(ownerGenesisHash('team-b'));
  });

  it('refuses to anchor into another owner chain', () => {
    // Prepare
    const head = buildOwnerChain().at(-1);
    // Act / Assess
    expect(() =>
      sealOwnerAnchor(head, {
        owner: 'team-b',
        at: '2025-01-01T00:00:00Z',
        runId: 'r',
        runHeadSeq: 0,
        runHead: 'a'.repeat(64),
      }),
    ).toThrow(AuditEntryError);
  });
});

describe('verifyOwnerChain', () => {
  it('accepts a valid owner chain', () => {
    // Prepare
    const anchors = buildOwnerChain();
    // Act / Assess
    expect(verifyOwnerChain(anchors, { owner: 'team-a' })).toEqual({
      ok: true,
      count: 4,
      head: anchors[3]!.hash,
    });
  });

  it.each<[string, number, OwnerChainFailureReason, (anchors: OwnerAnchor[]) => unknown[]]>([
    ['edit a run head', 1, 'hash_mismatch', (as) => as.with(1, { ...as[1]!, runHead: 'f'.repeat(64) })],
    ['delete an anchor', 2, 'seq_gap', (as) => as.filter((a) => a.seq !== 2)],
    ['reorder two anchors', 1, 'seq_gap', (as) => [as[0], as[2], as[1], as[3]]],
    [
      'splice an anchor of another owner',
      2,
      'wrong_owner',
      (as) => as.with(2, buildOwnerChain('team-b')[2]!),
    ],
    ['anchor a run twice', 2, 'duplicate_run', (_) => buildOwnerChain('team-a', ['run_1', 'run_2', 'run_1'])],
    [
      'link an anchor to the wrong predecessor',
      1,
      'prev_hash_mismatch',
      (as) => as.with(1, sealOwnerAnchor(buildOwnerChain('team-a', ['run_9'])[0], { ...as[1]! })),
    ],
  ])('%s: names seq %i as the first broken anchor (%s)', (_label, seq, reason, tamper) => {
    // Act
    const result = verifyOwnerChain(tamper(buildOwnerChain()), { owner: 'team-a' });
    // Assess
    expect(result).toMatchObject({ ok: false, firstBrokenSeq: seq, reason });
  });

  it('accepts a run anchored again at a later head of its chain (a reopened graph run)', () => {
    // Prepare
    const [first] = buildOwnerChain('team-a', ['run_1']);
    const later = buildChain('team-a', 'run_1', 8).at(-1)!;
    expect(later.seq).toBeGreaterThan(first!.runHeadSeq);
    const again = sealOwnerAnchor(first, {
      owner: 'team-a',
      at: '2025-01-02T01:00:00.000Z',
      runId: 'run_1',
      runHeadSeq: later.seq,
      runHead: later.hash,
    });
    // Act / Assess
    expect(verifyOwnerChain([first, again], { owner: 'team-a' })).toMatchObject({ ok: true, count: 2 });
    const earlier = sealOwnerAnchor(again, { ...first!, at: '2025-01-02T02:00:00.000Z' });
    expect(verifyOwnerChain([first, again, earlier], { owner: 'team-a' })).toMatchObject({
      ok: false,
      firstBrokenSeq: 2,
      reason: 'duplicate_run',
    });
  });

  it('is domain-separated from run chains: a run entry never verifies as an anchor', () => {
    // Act
    const result = verifyOwnerChain(buildChain(), { owner: 'team-a' });
    // Assess
    expect(result).toMatchObject({ ok: false, firstBrokenSeq: 0, reason: 'schema' });
  });

  it('gives the anchored head that detects a truncated run chain', () => {
    // Prepare
    const anchor = buildOwnerChain()[0]!;
    const truncated = buildChain('team-a', 'run_1').slice(0, 4);
    // Act
    const result = verifyAuditChain(truncated, {
      owner: 'team-a',
      runId: 'run_1',
      expectedHead: anchoredHead(anchor),
    });
    // Assess
    expect(result).toMatchObject({ ok: false, firstBrokenSeq: 4, reason: 'head_mismatch' });
  });
});
