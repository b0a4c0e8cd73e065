/**
 * `wf audit verify --json` gives the verdict the exit status gives: a chain that verifies page by page but no
 * longer matches its anchor in the owner's chain (rewritten after the run ended) exits 4 and is not `ok`.
 * The API's answer is a deterministic stand-in here; the CLI's output is what is judged.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../shared/cli/client.ts';
import { type Output, verifyAudit } from '../../shared/cli/commands.ts';
import type { RunAuditPage } from '../../shared/runs/audit-reader.ts';

const page = (anchored: boolean): RunAuditPage => ({
  runId: 'run_a',
  entries: [],
  from: { seq: 0, prevHash: '' },
  verification: { ok: true, count: 12, head: 'h12' },
  anchor: { seq: 7, runHead: anchored ? 'h12' : 'h9' } as unknown as RunAuditPage['anchor'],
  anchored,
});

async function verify(answer: RunAuditPage) {
  const client = { get: async () => answer } as unknown as ApiClient;
  const data: unknown[] = [];
  const lines: string[] = [];
  const out: Output = { json: true, line: (text) => lines.push(text), data: (value) => data.push(value) };
  const code = await verifyAudit(client, 'run_a', out);
  return { code, data: data[0], lines };
}

describe('wf audit verify --json', () => {
  it('is ok, with the anchor, when the chain verifies and matches its anchor (exit 0)', async () => {
    const { code, data } = await verify(page(true));
    expect(code).toBe(0);
    expect(data).toMatchObject({ ok: true, count: 12, head: 'h12', anchored: true, anchor: { seq: 7 } });
  });

  it('is not ok (anchor_mismatch) when the chain no longer matches its anchor (exit 4)', async () => {
    const { code, data, lines } = await verify(page(false));
    expect(code).toBe(4);
    expect(data).toMatchObject({ ok: false, reason: 'anchor_mismatch', count: 12, anchor: { seq: 7 } });
    expect(lines).toContain("NOT matching its anchor in the owner's chain (seq 7)");
  });
});
