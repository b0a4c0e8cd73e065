/**
 * Which refusals degrade a finished run: every one, except a denial of the input alone (gate.ts `DenialFault`)
 * that a later turn made good by running the same action.
 */
import { describe, expect, it } from 'vitest';
import { degradedFrom } from '../../shared/core/degraded.ts';
import { type DenialFault, denialText } from '../../shared/core/gate.ts';
import type { LedgerRow } from '../../shared/schemas/ledger.ts';

const AT = '2026-01-01T00:00:00.000Z';

function row(toolUseId: string, turn: number, status: LedgerRow['status'], content = 'ok'): LedgerRow {
  return {
    schemaVersion: 1,
    runId: 'run_1',
    toolUseId,
    turn,
    tool: 'notes_append',
    argsHash: 'h',
    idempotent: false,
    idempotencyKey: `k_${toolUseId}`,
    status,
    attempts: status === 'refused' ? 0 : 1,
    outcome: { content, isError: status !== 'completed' },
    createdAt: AT,
    settledAt: AT,
  };
}

const denied = (toolUseId: string, turn: number, fault: DenialFault) =>
  row(toolUseId, turn, 'refused', denialText({ reason: `${fault} reason`, fault }));

/** The ids a run's degraded record lists, or undefined when it is not degraded. */
const listed = (ledger: LedgerRow[]) => degradedFrom(ledger)?.refused.map((refusal) => refusal.toolUseId);

describe('degradedFrom', () => {
  it('does not count an input denial a later turn made good by running the same action', () => {
    expect(listed([denied('t1', 0, 'input'), row('t2', 1, 'completed')])).toBeUndefined();
    // A run that failed once it was dispatched still passed the gate: the input was corrected.
    expect(listed([denied('t1', 0, 'input'), row('t2', 1, 'failed')])).toBeUndefined();
  });

  it.each([
    ['an input denial never followed by a run of that action', [denied('t1', 0, 'input')], ['t1']],
    [
      'an input denial whose action ran only in the same turn (the model had not seen it)',
      [row('t0', 0, 'completed'), denied('t1', 0, 'input')],
      ['t1'],
    ],
    [
      'an input denial followed only by another refusal',
      [denied('t1', 0, 'input'), denied('t2', 1, 'policy')],
      ['t1', 't2'],
    ],
    [
      'a policy denial, whatever ran after it',
      [denied('t1', 0, 'policy'), row('t2', 1, 'completed')],
      ['t1'],
    ],
    [
      'an input denial of another action than the one that ran',
      [{ ...denied('t1', 0, 'input'), tool: 'notes_put' }, row('t2', 1, 'completed')],
      ['t1'],
    ],
    [
      'an input denial stored before input denials were told apart ("Do not retry it")',
      [
        row(
          't1',
          0,
          'refused',
          "Denied: the input does not match the action's schema (line: expected string). This call was not executed. Do not retry it; continue without it, or say what you could not do.",
        ),
        row('t2', 1, 'completed'),
      ],
      ['t1'],
    ],
  ])('counts %s', (_case, ledger, ids) => {
    expect(listed(ledger)).toEqual(ids);
    expect(degradedFrom(ledger)?.count).toBe(ids.length);
  });
});
