import { describe, expect, it } from 'vitest';
import {
  FORM_STATE_MAX_CHARS,
  openFormState,
  sealFormState,
} from '../../shared/approvals-http/form-state.ts';
import { FixedClock } from '../support/store.ts';
import { BOSS, keyring, OPS, parkRun } from './support.ts';

describe('sealFormState / openFormState', () => {
  it('opens the approval and run a page read, for the approval, approver and nonce it was sealed for', async () => {
    // Prepare
    const { approval, run } = await parkRun(new FixedClock());
    const binding = { approvalId: approval.approvalId, approver: BOSS, nonce: 'nonce-1' };

    // Act
    const state = sealFormState({ approval, run }, binding, keyring)!;

    // Assess
    expect(openFormState(state, binding, keyring)).toEqual({ ok: true, load: { approval, run } });
    expect(openFormState(state, { ...binding, approver: OPS }, keyring)).toEqual({
      ok: false,
      reason: 'bad_seal',
    });
  });

  it('seals nothing past FORM_STATE_MAX_CHARS (the decision then reads)', async () => {
    // Prepare
    const { approval, run } = await parkRun(new FixedClock());
    const large = { ...approval, args: { line: 'x'.repeat(FORM_STATE_MAX_CHARS) } };

    // Act / Assess
    expect(
      sealFormState(
        { approval: large, run },
        { approvalId: approval.approvalId, approver: BOSS, nonce: 'n' },
        keyring,
      ),
    ).toBeUndefined();
  });

  it('refuses a sealed state that names another approval than the one it is bound to', async () => {
    // Prepare: a state sealed (with the deployment's key) around another approval than its binding names.
    const { approval, run } = await parkRun(new FixedClock());
    const binding = { approvalId: 'apr_another000000', approver: BOSS, nonce: 'n' };
    const state = sealFormState({ approval, run }, binding, keyring)!;

    // Act / Assess
    expect(openFormState(state, binding, keyring)).toEqual({ ok: false, reason: 'wrong_approval' });
  });
});
