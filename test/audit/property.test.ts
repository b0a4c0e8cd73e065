import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AUDIT_ENTRY_TYPES,
  type AuditEntry,
  type AuditEntryType,
  appendAuditEntry,
  canonicalJson,
  computeAuditEntryHash,
  verifyAuditChain,
} from '../../shared/audit/index.ts';

const types = Object.keys(AUDIT_ENTRY_TYPES) as AuditEntryType[];
const id = fc.stringMatching(/^[a-z0-9_-]{1,12}$/);
const iso = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
const actor = fc.oneof(
  fc.constantFrom('system', 'model'),
  id.map((x) => `approver:${x}`),
  id.map((x) => `owner:${x}`),
);
const data = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
const hex = fc.stringMatching(/^[0-9a-f]{64}$/);

const step = fc.record({ type: fc.constantFrom(...types), actor, data, at: iso });

const chainArb = fc
  .record({ owner: id, runId: id, steps: fc.array(step, { minLength: 1, maxLength: 10 }) })
  .map(({ owner, runId, steps }) => {
    const entries: AuditEntry[] = [];
    for (const s of steps) entries.push(appendAuditEntry(entries.at(-1), { ...s, owner, runId }));
    return { owner, runId, entries };
  });

type Mutation = { field: string; value: unknown } | { field: string; remove: true };

/** A change to one field of an entry (or an added/removed field), with a value that differs canonically. */
const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  id.map((value) => ({ field: 'owner', value })),
  id.map((value) => ({ field: 'runId', value })),
  fc.nat({ max: 50 }).map((value) => ({ field: 'seq', value })),
  fc.oneof(iso, fc.string()).map((value) => ({ field: 'at', value })),
  fc.oneof(fc.constantFrom(...types), fc.string()).map((value) => ({ field: 'type', value })),
  fc.oneof(actor, fc.string()).map((value) => ({ field: 'actor', value })),
  data.map((value) => ({ field: 'data', value })),
  hex.map((value) => ({ field: 'prevHash', value })),
  hex.map((value) => ({ field: 'hash', value })),
  fc.constantFrom(0, 2, '1').map((value) => ({ field: 'schemaVersion', value })),
  fc.jsonValue().map((value) => ({ field: 'extra', value })),
  fc
    .constantFrom('owner', 'runId', 'seq', 'at', 'type', 'actor', 'data', 'prevHash', 'hash', 'schemaVersion')
    .map((field) => ({ field, remove: true as const })),
);

function mutate(entry: AuditEntry, mutation: Mutation): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...entry };
  if ('remove' in mutation) delete copy[mutation.field];
  else copy[mutation.field] = mutation.value;
  return copy;
}

const differs = (a: unknown, b: unknown) => canonicalJson(a) !== canonicalJson(b);

describe('verifyAuditChain (property)', () => {
  it('names the mutated entry as the first broken one, for any single-entry mutation', () => {
    fc.assert(
      fc.property(chainArb, fc.nat(), mutationArb, ({ owner, runId, entries }, pick, mutation) => {
        // Prepare
        const k = pick % entries.length;
        const mutated = mutate(entries[k]!, mutation);
        fc.pre(differs(mutated, entries[k]));
        // Act
        const result = verifyAuditChain(entries.with(k, mutated as AuditEntry), { owner, runId });
        // Assess
        expect(result).toMatchObject({ ok: false, firstBrokenSeq: k, index: k });
      }),
      { numRuns: 500 },
    );
  });

  it('detects a content change even when the hash is recomputed, given the anchored head', () => {
    const content = fc.oneof(
      data.map((value) => ({ field: 'data', value })),
      iso.map((value) => ({ field: 'at', value })),
      fc.constantFrom(...types).map((value) => ({ field: 'type', value })),
      actor.map((value) => ({ field: 'actor', value })),
    );
    fc.assert(
      fc.property(chainArb, fc.nat(), content, ({ owner, runId, entries }, pick, mutation) => {
        // Prepare
        const k = pick % entries.length;
        const { hash: _h, ...body } = mutate(entries[k]!, mutation) as AuditEntry;
        fc.pre(differs(body, { ...entries[k], hash: undefined }));
        const forged = { ...body, hash: computeAuditEntryHash(body) };
        const head = entries.at(-1)!;
        // Act
        const result = verifyAuditChain(entries.with(k, forged), {
          owner,
          runId,
          expectedHead: { seq: head.seq, hash: head.hash },
        });
        // Assess: the successor's link breaks, or for the last entry the anchored head does
        const expected = k < entries.length - 1 ? k + 1 : k;
        expect(result).toMatchObject({ ok: false, firstBrokenSeq: expected });
      }),
      { numRuns: 300 },
    );
  });

  it('accepts every untouched random chain', () => {
    fc.assert(
      fc.property(chainArb, ({ owner, runId, entries }) => {
        // Act
        const result = verifyAuditChain(JSON.parse(JSON.stringify(entries)), { owner, runId });
        // Assess
        expect(result).toEqual({ ok: true, count: entries.length, head: entries.at(-1)!.hash });
      }),
      { numRuns: 200 },
    );
  });
});
