/**
 * A local stack restart while a run waits for approval: the second stack (same data directory, so the same
 * keyring and API key, and the same table) resumes the run, and the link issued by the first stack still
 * decides it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APPROVER,
  appendTurn,
  applyWorkflowText,
  awaitingApproval,
  createOwnTable,
  type E2eStack,
  eventually,
  gatedNotesWorkflow,
  getAudit,
  getRun,
  hiddenFields,
  noteLines,
  openPage,
  postForm,
  removeDir,
  runEnded,
  startE2eStack,
  startRun,
  tempDataDir,
} from './support.ts';

const fixtures = [
  {
    name: 'e2e-restart',
    turns: [
      appendTurn('survived a restart'),
      {
        expect: { toolResults: [{ toolName: 'notes_append', contains: '1 line(s)', isError: false }] },
        text: 'Recorded.',
      },
    ],
  },
];

let table: { endpoint: string; tableName: string };
let dataDir: string;
let first: E2eStack | undefined;
let second: E2eStack | undefined;

beforeAll(async () => {
  table = await createOwnTable();
  dataDir = await tempDataDir();
});

afterAll(async () => {
  await first?.stack.stop();
  await second?.stack.stop();
  await removeDir(dataDir);
});

describe('Restart while a run waits for approval', () => {
  it('resumes the run on the new stack, and the link issued before the restart approves it: done, action once', async () => {
    // Prepare: a run parked on approval, with its link, on the first stack.
    first = await startE2eStack(table, { dataDir, fixtures });
    const workflowId = await applyWorkflowText(first, 'e2e-restart', gatedNotesWorkflow('e2e-restart'));
    const runId = await startRun(first, workflowId);
    const { link, approval } = await awaitingApproval(first, runId);
    const issuedBefore = first.stack.inbox.notices().filter((notice) => notice.runId === runId);
    const port = Number(new URL(first.stack.url).port);

    // Act: stop, start again on the same data directory, table and port (the link names the port).
    await first.stack.stop();
    const firstStack = first;
    first = undefined;
    second = await startE2eStack(table, { dataDir, fixtures, port });
    const resumed = second.stack.resumed;
    const afterRestart = await getRun(second, runId);
    // The resumed execution parks on the approval again (a fresh task token, a fresh notice). The run is already
    // `awaiting_approval` from before the restart, so wait for the new token itself, not for the status.
    const restarted = second;
    const reparked = await eventually('the resumed execution to store a fresh task token', async () => {
      const parked = await awaitingApproval(restarted, runId);
      return parked.approval.taskToken !== approval.taskToken ? parked : undefined;
    });
    const decided = await (async () => {
      const form = await openPage(link);
      return postForm(form.action, { ...hiddenFields(form), decision: 'approve' });
    })();
    const run = await runEnded(second, runId);

    // Assess
    expect(issuedBefore).toEqual([expect.objectContaining({ approver: APPROVER, url: link })]);
    expect(firstStack.stack.apiKey).toBe(second.stack.apiKey);
    expect(resumed).toContain(runId);
    expect(afterRestart.status).toBe('awaiting_approval');
    // The resumed execution is recorded on the run, so a cancel would stop the one that is running.
    expect(afterRestart.executionArn).toMatch(new RegExp(`${runId}-resume-`));
    expect(reparked.approval.approvalId).toBe(approval.approvalId);
    expect(reparked.approval.taskToken).not.toBe(approval.taskToken);
    expect(decided.status).toBe(200);
    expect(run).toMatchObject({
      status: 'done',
      stopReason: 'end_turn',
      modelCalls: 2,
      result: { text: 'Recorded.' },
    });
    expect(run.error).toBeUndefined();
    expect(await noteLines(second, runId)).toEqual(['survived a restart']);
    expect(await second.stack.store.getApproval(approval.approvalId)).toMatchObject({
      status: 'approved',
      decidedBy: APPROVER,
    });
    const audit = await getAudit(second, runId);
    expect(audit.verification.ok).toBe(true);
    expect(audit.entries.filter((entry) => entry.type === 'approval_decided')).toHaveLength(1);
    expect(audit.entries.filter((entry) => entry.type === 'model_call')).toHaveLength(2);
    await eventually('nothing left running', async () =>
      (await second!.stack.sfn.listExecutions({ status: 'RUNNING' })).length === 0 ? true : undefined,
    );
  });
});
