/**
 * Human-task records on DynamoDB Local, requested through humanTaskPort as a graph wait requests them: requesting
 * opens one record per step attempt with the form, the context the wait evaluated and the token; each assignee gets their own signed link (no task token in it); a re-request only
 * replaces the token; a task already over answers the wait at once; nobody reachable closes it (fail closed).
 */
import { describe, expect, it } from 'vitest';
import { verifySubjectLink } from '../../shared/approvals/index.ts';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import {
  completeHumanTask,
  expireHumanTask,
  HUMAN_TASK_ERRORS,
  humanTaskPort,
  type RequestHumanTaskResult,
} from '../../shared/human-tasks/index.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import { humanTaskId, parseHumanTaskId } from '../../shared/schemas/human-task.ts';
import { useSfnWire } from '../approvals-http/sfn-wire.ts';
import { FixedClock } from '../support/store.ts';
import {
  DEPUTY,
  deps,
  keyring,
  MANAGER,
  MESSAGE,
  node,
  requestTask,
  seededRun,
  store,
  taskScenario,
} from './support.ts';

const wire = useSfnWire();

const targets = () => wire.calls.map((call) => call.target.replace('AWSStepFunctions.', ''));

describe('requesting a human task', () => {
  it('opens the record with the form, the context snapshot, the expiry and the token', async () => {
    const s = await taskScenario(wire);
    expect(s.requested).toMatchObject({ status: 'notified', notified: [MANAGER, DEPUTY], failed: [] });
    expect(s.taskId).toBe(humanTaskId(s.run.runId, 'review', 1));
    expect(parseHumanTaskId(s.taskId)).toEqual({ runId: s.run.runId, stepId: 'review', attempt: 1 });
    const task = (await store.getHumanTask(s.taskId))!;
    expect(task).toMatchObject({
      owner: s.run.owner,
      runId: s.run.runId,
      stepId: 'review',
      status: 'open',
      assignees: [MANAGER, DEPUTY],
      taskToken: s.taskToken,
      expiresAt: new Date(s.clock.nowMs() + 600_000).toISOString(),
    });
    expect(task.notifiedAt).toBeDefined();
    expect(task.context).toEqual([
      { path: 'steps.triage.output.amount', value: 250 },
      { path: 'input.message', value: MESSAGE },
      { path: 'steps.nothing.output' },
    ]);
    expect(targets()).toEqual([]);
  });

  it('sends each assignee a link signed for them and this form, with no task token in it', async () => {
    const s = await taskScenario(wire);
    const notices = s.inbox.notices();
    expect(notices.map((n) => [n.approver, n.subject])).toEqual([
      [MANAGER, 'human_task'],
      [DEPUTY, 'human_task'],
    ]);
    const task = (await store.getHumanTask(s.taskId))!;
    for (const notice of notices) {
      expect(notice.url).not.toContain(s.taskToken);
      expect(notice.url.startsWith(`http://127.0.0.1:8787/human-tasks/${s.taskId}?t=`)).toBe(true);
      const verified = verifySubjectLink('human_task', s.linkOf(notice.approver).token, keyring, {
        nowMs: s.clock.nowMs(),
        id: s.taskId,
        hash: task.formHash,
      });
      expect(verified).toMatchObject({ ok: true, claims: { holder: notice.approver } });
    }
    // A human-task link is not an approval link: the MAC domains differ.
    expect(
      verifySubjectLink('approval', s.linkOf(MANAGER).token, keyring, { nowMs: s.clock.nowMs() }),
    ).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('audits the request and one notice per assignee, never the link or the token', async () => {
    const s = await taskScenario(wire);
    const entries = await store.listAudit(s.run.runId);
    const mine = entries.filter((e) => e.type.startsWith('human_task'));
    expect(mine.map((e) => [e.type, e.data.assignee ?? null])).toEqual([
      ['human_task_requested', null],
      ['human_task_notified', MANAGER],
      ['human_task_notified', DEPUTY],
    ]);
    const text = JSON.stringify(entries);
    expect(text).not.toContain(s.taskToken);
    expect(text).not.toContain(s.linkOf(MANAGER).token);
    expect(verifyAuditChain(entries, { owner: s.run.owner, runId: s.run.runId }).ok).toBe(true);
  });

  it('a re-request replaces the token and sends no second round of links', async () => {
    const s = await taskScenario(wire);
    const again = await requestTask(s.deps, s.run, { taskToken: 'newer-token' });
    expect(again).toEqual({ status: 'waiting', taskId: s.taskId });
    expect((await store.getHumanTask(s.taskId))!.taskToken).toBe('newer-token');
    expect(s.inbox.notices()).toHaveLength(2);
  });

  it('a re-request after a submission answers the wait at once with the output', async () => {
    const s = await taskScenario(wire);
    await completeHumanTask(s.deps, {
      taskId: s.taskId,
      assignee: MANAGER,
      values: { decision: 'approve', reference: 'R-1' },
    });
    wire.reset();
    const again = await requestTask(s.deps, s.run, { taskToken: 'late-token' });
    expect(again).toMatchObject({ status: 'answered', outcome: 'submitted', answer: 'sent' });
    expect(wire.calls[0]!.body).toEqual({
      taskToken: 'late-token',
      output: JSON.stringify({ output: { decision: 'approve', reference: 'R-1' } }),
    });
  });

  it('a re-request after expiry fails the wait with HumanTask.Expired', async () => {
    const s = await taskScenario(wire);
    s.clock.advance(600_000);
    expect(await expireHumanTask(s.deps, { runId: s.run.runId, stepId: 'review' })).toEqual({
      status: 'expired',
      taskId: s.taskId,
    });
    const again = await requestTask(s.deps, s.run, { taskToken: 'late-token' });
    expect(again).toMatchObject({ status: 'answered', outcome: 'expired' });
    expect(targets()).toEqual(['SendTaskFailure']);
    expect(wire.calls[0]!.body.error).toBe(HUMAN_TASK_ERRORS.expired);
  });

  it('another attempt of the step is a new task', async () => {
    const s = await taskScenario(wire);
    const second = await requestTask(s.deps, s.run, { attempt: 2, taskToken: 'attempt-2' });
    expect(second).toMatchObject({ status: 'notified', taskId: humanTaskId(s.run.runId, 'review', 2) });
    expect((await store.listRunHumanTasks(s.run.runId)).map((t) => t.attempt)).toEqual([1, 2]);
  });

  it('closes the task and fails the wait when no assignee can be reached', async () => {
    const clock = new FixedClock();
    const run = await seededRun(clock);
    const nobody = { ...inboxNotifier(), channel: 'sns', reaches: () => false };
    const { deps: d } = deps(wire, clock, nobody);
    const result = await requestTask(d, run, { taskToken: 'tok' });
    expect(result).toMatchObject({ status: 'undeliverable', answer: 'sent' });
    expect(await store.getHumanTask(result.taskId)).toMatchObject({
      status: 'closed',
      closedReason: 'undeliverable',
    });
    expect(wire.calls[0]!.body.error).toBe(HUMAN_TASK_ERRORS.undeliverable);
    const audit = await store.listAudit(run.runId);
    expect(audit.at(-1)).toMatchObject({ type: 'human_task_closed', data: { reason: 'undeliverable' } });
  });
});

describe("humanTaskPort (the graph executor's port)", () => {
  it("opens the task from the executor's evaluated context and expiry, and closes one step's task", async () => {
    const clock = new FixedClock();
    const run = await seededRun(clock);
    const inbox = inboxNotifier();
    const { deps: d } = deps(wire, clock, inbox);
    const results: RequestHumanTaskResult[] = [];
    const port = humanTaskPort(d, (result) => results.push(result));
    const expiresAt = new Date(clock.nowMs() + 120_000).toISOString();
    const request = {
      owner: run.owner,
      runId: run.runId,
      stepId: 'review',
      attempt: 1,
      workflowId: run.workflowId,
      workflowName: run.workflowName,
      taskToken: 'port-token',
      title: 'Review',
      assignees: [MANAGER],
      form: node().form,
      context: { 'steps.triage.output.amount': 250, 'input.big': 'x'.repeat(5000) },
      expiresAt,
    };
    await port.request(request);
    await port.request({ ...request, stepId: 'other' });
    const taskId = humanTaskId(run.runId, 'review', 1);
    const task = (await store.getHumanTask(taskId))!;
    expect(results.map((r) => r.status)).toEqual(['notified', 'notified']);
    expect(task).toMatchObject({ status: 'open', expiresAt, taskToken: 'port-token', title: 'Review' });
    expect(task.context[0]).toEqual({ path: 'steps.triage.output.amount', value: 250 });
    expect(task.context[1]).toMatchObject({ path: 'input.big', truncated: true });
    expect(inbox.notices().map((n) => n.expiresAt)).toEqual([expiresAt, expiresAt]);

    await port.close({ owner: run.owner, runId: run.runId, stepId: 'review' });
    expect((await store.getHumanTask(taskId))!.status).toBe('closed');
    expect((await store.getHumanTask(humanTaskId(run.runId, 'other', 1)))!.status).toBe('open');
  });

  it('shortens a context value with an emoji at the cut before the emoji, never half of it', async () => {
    // Prepare: in the JSON `"x😀😀…"` every emoji starts at an even index, as does the cut (3,999 and a '…')
    const clock = new FixedClock();
    const run = await seededRun(clock);
    const { deps: d } = deps(wire, clock, inboxNotifier());
    const port = humanTaskPort(d, () => {});
    const emoji = '\u{1F600}';

    // Act
    await port.request({
      owner: run.owner,
      runId: run.runId,
      stepId: 'review',
      attempt: 1,
      workflowId: run.workflowId,
      workflowName: run.workflowName,
      taskToken: 'port-token',
      title: 'Review',
      assignees: [MANAGER],
      form: node().form,
      context: { 'input.big': `x${emoji.repeat(3_000)}` },
      expiresAt: new Date(clock.nowMs() + 120_000).toISOString(),
    });

    // Assess: the stored preview ends on a whole emoji, and the audit chain of the run still verifies
    const task = (await store.getHumanTask(humanTaskId(run.runId, 'review', 1)))!;
    expect(task.context[0]).toEqual({
      path: 'input.big',
      value: `"x${emoji.repeat(1_998)}…`,
      truncated: true,
    });
    expect(
      verifyAuditChain(await store.listAudit(run.runId), { owner: run.owner, runId: run.runId }),
    ).toMatchObject({ ok: true });
  });
});
