import { describe, expect, it } from 'vitest';
import {
  AuditEntryError,
  definitionHash,
  type OwnerChange,
  ownerChangeGenesisHash,
  ownerGenesisHash,
  sealOwnerChange,
  verifyOwnerChanges,
} from '../../shared/audit/index.ts';

const types = [
  'workflow_created',
  'workflow_version_added',
  'workflow_disabled',
  'workflow_deleted',
] as const;

function buildChanges(owner = 'team-a'): OwnerChange[] {
  const changes: OwnerChange[] = [];
  for (const [i, type] of types.entries()) {
    changes.push(
      sealOwnerChange(changes.at(-1), {
        owner,
        at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        type,
        author: i === 2 ? 'arn:aws:sts::123456789012:assumed-role/ops/bob' : 'alice@laptop',
        workflowId: 'wf_abcdef',
        version: i === 0 ? 1 : 2,
        data: { name: 'flow', definitionHash: definitionHash({ name: 'flow', i }) },
      }),
    );
  }
  return changes;
}

describe('sealOwnerChange', () => {
  it('chains changes from a genesis bound to the owner, in a domain of its own', () => {
    // Act
    const changes = buildChanges();
    // Assess
    expect(changes.map((change) => change.seq)).toEqual([0, 1, 2, 3]);
    expect(changes[0]!.prevHash).toBe(ownerChangeGenesisHash('team-a'));
    expect(changes[0]!.prevHash).not.toBe(ownerGenesisHash('team-a'));
    expect(changes[1]!.prevHash).toBe(changes[0]!.hash);
  });

  it('refuses a change without an author, naming the field', () => {
    // Act / Assess
    expect(() =>
      sealOwnerChange(undefined, {
        owner: 'team-a',
        at: '2026-01-01T00:00:00Z',
        type: 'workflow_created',
        author: '',
        workflowId: 'wf_abcdef',
        version: 1,
        data: {},
      }),
    ).toThrow(/author/);
  });

  it('refuses to append to another owner chain', () => {
    // Prepare
    const head = buildChanges().at(-1);
    // Act / Assess
    expect(() => sealOwnerChange(head, { ...head!, owner: 'team-b' })).toThrow(AuditEntryError);
  });
});

describe('verifyOwnerChanges', () => {
  it('accepts a sealed chain', () => {
    // Prepare
    const changes = buildChanges();
    // Act / Assess
    expect(verifyOwnerChanges(changes, { owner: 'team-a' })).toEqual({
      ok: true,
      count: 4,
      head: changes[3]!.hash,
    });
  });

  it.each([
    ['an edited author', (c: OwnerChange[]) => ({ ...c[2]!, author: 'mallory' }), 2, 'hash_mismatch'],
    [
      'a re-sealed edit',
      (c: OwnerChange[]) => resealed(c[1]!, { author: 'mallory' }),
      2,
      'prev_hash_mismatch',
    ],
    ['an extra field', (c: OwnerChange[]) => ({ ...c[1]!, note: 'x' }), 1, 'schema'],
    ['a renumbered change', (c: OwnerChange[]) => ({ ...c[1]!, seq: 5 }), 1, 'seq_gap'],
  ] as const)('names the first broken change after %s', (_name, edit, broken, reason) => {
    // Prepare
    const changes: unknown[] = buildChanges();
    const index = reason === 'prev_hash_mismatch' ? 1 : broken;
    changes[index] = edit(changes as OwnerChange[]);
    // Act
    const result = verifyOwnerChanges(changes, { owner: 'team-a' });
    // Assess
    expect(result).toMatchObject({ ok: false, firstBrokenSeq: broken, reason });
  });

  it('refuses a chain of another owner', () => {
    // Act / Assess
    expect(verifyOwnerChanges(buildChanges('team-b'), { owner: 'team-a' })).toMatchObject({
      ok: false,
      reason: 'wrong_owner',
    });
  });
});

/** An edited change sealed again on its original predecessor: its own hash checks, its successor's link breaks. */
function resealed(change: OwnerChange, edit: Partial<OwnerChange>): OwnerChange {
  const { hash: _hash, prevHash: _prev, seq: _seq, schemaVersion: _v, ...input } = { ...change, ...edit };
  return sealOwnerChange(change.seq === 0 ? undefined : buildChanges()[change.seq - 1], input);
}
