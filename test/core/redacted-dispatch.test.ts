/**
 * A dispatch's result is redacted of every credential of the workflow, in a fresh container too (the
 * secrets port redacts only what it has resolved), and a call whose result could not be redacted is not
 * made. Through the graph's service-step dispatch, which never calls the model (so nothing else would have
 * resolved the other slots first); the agent path is covered end to end by secrets-never-stored.test.ts.
 * The result is also made well-formed: a lone surrogate in it becomes U+FFFD.
 */
import { describe, expect, it } from 'vitest';
import type { Action } from '../../shared/core/actions.ts';
import { REDACTED } from '../../shared/credentials/redactor.ts';
import { createEgress } from '../../shared/egress/index.ts';
import { dispatch, type ServiceStepDeps } from '../../shared/graph-run/service-dispatch.ts';
import type { LedgerRow } from '../../shared/schemas/ledger.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { secretsFile } from '../actions/support.ts';
import { FixedClock } from '../support/store.ts';

const A = 'wfsecret-SlotA-Jd4+Rk/82Nc=Vb15';
const B = 'wfsecret-SlotB-Qe7+Lm/36Tx=Hs90';
const credRefs = { a: { secret: 'wf/owner-test/a' }, b: { secret: 'wf/owner-test/b' } };
const run = { runId: 'run_1', owner: 'owner-test', workflowId: 'wf_1' } as Run;
const row = { idempotencyKey: 'idem_1' } as LedgerRow;

/** An action that resolves only slot a (as a connector does) and answers with both values. */
function echoAction(calls: string[]): Action {
  return {
    name: 'echo',
    description: 'echo',
    input: {} as Action['input'],
    idempotent: true,
    irreversible: false,
    async run(_input, ctx) {
      calls.push('run');
      const a = await ctx.secrets.resolve({ owner: 'owner-test', secret: 'wf/owner-test/a' });
      return { content: `a=${a} b=${B} b64=${Buffer.from(B).toString('base64')}`, isError: false };
    },
  };
}

const depsWith = (values: Record<string, string>) =>
  ({
    secrets: secretsFile(values),
    egress: createEgress(),
    clock: new FixedClock(),
  }) as unknown as ServiceStepDeps;

describe('service-step dispatch redaction', () => {
  it('redacts a slot the action never resolved, in a fresh secrets port', async () => {
    const calls: string[] = [];
    const deps = depsWith({ 'wf/owner-test/a': A, 'wf/owner-test/b': B });

    const outcome = await dispatch(deps, run, echoAction(calls), {}, row, { credRefs, rerun: false });

    expect(outcome).toEqual({ content: `a=${REDACTED} b=${REDACTED} b64=${REDACTED}`, isError: false });
    expect(calls).toEqual(['run']);
  });

  it('does not make the call when a credential of the workflow cannot be loaded (fail closed)', async () => {
    const calls: string[] = [];
    const deps = depsWith({ 'wf/owner-test/a': A });

    const fresh = await dispatch(deps, run, echoAction(calls), {}, row, { credRefs, rerun: false });
    const rerun = await dispatch(deps, run, echoAction(calls), {}, row, { credRefs, rerun: true });

    expect(calls).toEqual([]);
    expect(fresh).toEqual({
      content: expect.stringMatching(/^Not sent: the runtime could not load the workflow's credential 'b'/),
      isError: true,
    });
    expect(rerun).toMatchObject({ isError: true, outcomeUnknown: true });
    expect(rerun.content).toContain("credential 'b'");
  });
});

describe('service-step dispatch of an answer that is not well-formed text', () => {
  it('replaces a lone surrogate in the result (a JSON escape an action passed on) with U+FFFD', async () => {
    const action: Action = {
      name: 'relay',
      description: 'relay',
      input: {} as Action['input'],
      idempotent: true,
      irreversible: false,
      run: async () => ({ content: JSON.parse('"half an emoji: \\ud83d"') as string, isError: false }),
    };

    const outcome = await dispatch(depsWith({}), run, action, {}, row, { credRefs: {}, rerun: false });

    expect(outcome).toEqual({ content: 'half an emoji: \ufffd', isError: false });
  });
});
