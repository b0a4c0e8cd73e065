import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import { verifyTranscriptBinding } from '../../shared/core/transcript-binding.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

describe('closing message of a run ended with open calls', () => {
  it('keeps the recorded result of a call that already ran, so the transcript matches its audit', async () => {
    // Prepare: a1 runs, g1 waits for approval; then the workflow is disabled.
    const { head, version } = await seedWorkflow(
      store,
      minimalWorkflow({
        gates: { notes_put: 'needs_approval' },
        approvals: { approvers: ['boss@example.com'], timeoutSeconds: 600 },
      }),
    );
    const run = await seedRun(store, version);
    const model = new ScriptedModel([
      {
        content: [
          text('Logging, then asking.'),
          toolUse('a1', 'notes_append', { name: 'n', line: 'ran' }),
          toolUse('g1', 'notes_put', { name: 'p', value: 'gated' }),
        ],
        stopReason: 'tool_use',
      },
    ]);
    const deps = engineDeps(store, model);
    const waiting = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    expect(waiting.next).toBe('await_approval');
    await store.updateWorkflowHead(head, { ...head, enabled: false, updatedAt: new Date().toISOString() });

    // Act
    const ended = await runTurn(deps, { runId: run.runId, turn: waiting.turn, segmentStartTurn: 0 });

    // Assess
    expect(ended).toMatchObject({ next: 'failed', stopReason: 'policy_denied' });
    const messages = await store.listMessages(run.runId);
    const closing = messages.at(-1)!.content;
    expect(closing).toEqual([
      { type: 'tool_result', tool_use_id: 'a1', content: expect.stringContaining('1 line') },
      {
        type: 'tool_result',
        tool_use_id: 'g1',
        content: 'Not executed: the workflow was disabled or deleted.',
        is_error: true,
      },
    ]);
    const audit = await store.listAudit(run.runId);
    expect(verifyAuditChain(audit, { owner: run.owner, runId: run.runId })).toMatchObject({ ok: true });
    expect(verifyTranscriptBinding(audit, messages)).toEqual({ ok: true });
  });
});
