import { describe, expect, it } from 'vitest';
import {
  AUDIT_ENTRY_TYPES,
  AuditEntryError,
  AuditEntrySchema,
  appendAuditEntry,
  auditGenesisHash,
  computeAuditEntryHash,
  sealAuditEntry,
  verifyAuditChain,
} from '../../shared/audit/index.ts';
import { buildChain } from './fixtures.ts';

const run = { owner: 'team-a', runId: 'run_1' };

describe('sealAuditEntry', () => {
  it('links seq 0 to the genesis hash of its owner and run', () => {
    // Prepare
    const unsealed = {
      schemaVersion: 1 as const,
      ...run,
      seq: 0,
      at: '2025-01-01T00:00:00.000Z',
      type: 'run_created' as const,
      actor: 'system',
      data: {},
    };
    // Act
    const entry = sealAuditEntry(unsealed, auditGenesisHash(run));
    // Assess
    expect(entry.prevHash).toBe(auditGenesisHash(run));
    expect(entry.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(AuditEntrySchema.parse(entry)).toEqual(entry);
  });

  it('derives distinct genesis hashes for distinct runs and owners', () => {
    // Act
    const hashes = new Set([
      auditGenesisHash(run),
      auditGenesisHash({ owner: 'team-a', runId: 'run_2' }),
      auditGenesisHash({ owner: 'team-b', runId: 'run_1' }),
      // a naive concatenation would make these two equal
      auditGenesisHash({ owner: 'team-a:', runId: 'run_1' }),
      auditGenesisHash({ owner: 'team-a', runId: ':run_1' }),
    ]);
    // Assess
    expect(hashes.size).toBe(5);
  });

  it('hashes independently of the key order of data', () => {
    // Prepare
    const base = { ...run, at: '2025-01-01T00:00:00Z', type: 'settle' as const, actor: 'system' };
    // Act
    const a = appendAuditEntry(undefined, { ...base, data: { x: 1, y: { b: 2, a: 1 } } });
    const b = appendAuditEntry(undefined, { ...base, data: { y: { a: 1, b: 2 }, x: 1 } });
    // Assess
    expect(a.hash).toBe(b.hash);
  });

  it.each([
    ['an unknown type', { type: 'made_up' }],
    ['a malformed actor', { actor: 'approver:' }],
    ['a time that is not ISO-8601', { at: 'yesterday' }],
    ['an extra field', { extra: true }],
    ['data that has no JSON form', { data: { n: Number.NaN } }],
  ])('refuses to seal an entry with %s', (_label, patch) => {
    // Prepare
    const unsealed = {
      schemaVersion: 1 as const,
      ...run,
      seq: 0,
      at: '2025-01-01T00:00:00Z',
      type: 'error' as const,
      actor: 'system',
      data: {},
      ...patch,
    };
    // Act / Assess
    expect(() => sealAuditEntry(unsealed as never, auditGenesisHash(run))).toThrow(AuditEntryError);
  });

  it('refuses to append to another run', () => {
    // Prepare
    const [head] = buildChain('team-a', 'run_1', 1);
    // Act / Assess
    expect(() =>
      appendAuditEntry(head, {
        ...run,
        runId: 'run_2',
        at: '2025-01-01T00:00:00Z',
        type: 'error',
        actor: 'system',
        data: {},
      }),
    ).toThrow(/another run/);
  });

  it('documents every entry type', () => {
    // Assess
    for (const description of Object.values(AUDIT_ENTRY_TYPES))
      expect(description.length).toBeGreaterThan(10);
    expect(AuditEntrySchema.shape.type.options).toEqual(Object.keys(AUDIT_ENTRY_TYPES));
  });
});

describe('verifyAuditChain', () => {
  it('accepts a valid chain and reports its head', () => {
    // Prepare
    const entries = buildChain();
    // Act
    const result = verifyAuditChain(entries, run);
    // Assess
    expect(result).toEqual({ ok: true, count: 6, head: entries[5]!.hash });
  });

  it('accepts an empty chain whose head is the genesis hash', () => {
    // Act / Assess
    expect(verifyAuditChain([], run)).toEqual({ ok: true, count: 0, head: auditGenesisHash(run) });
  });

  it('accepts entries that went through a JSON round trip (as a store returns them)', () => {
    // Prepare
    const entries = JSON.parse(JSON.stringify(buildChain())) as unknown[];
    // Act / Assess
    expect(verifyAuditChain(entries, run).ok).toBe(true);
  });

  it('verifies a suffix from a trusted checkpoint', () => {
    // Prepare
    const entries = buildChain();
    // Act
    const result = verifyAuditChain(entries.slice(3), {
      ...run,
      start: { seq: 3, prevHash: entries[2]!.hash },
    });
    // Assess
    expect(result).toEqual({ ok: true, count: 3, head: entries[5]!.hash });
  });

  it('exposes the hash function it verifies with', () => {
    // Prepare
    const [entry] = buildChain('team-a', 'run_1', 1);
    const { hash, ...body } = entry!;
    // Act / Assess
    expect(computeAuditEntryHash(body)).toBe(hash);
  });
});
