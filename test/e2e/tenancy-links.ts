/**
 * The approval and human-task links and forms of the tenancy check: A's approver's and assignee's signed links
 * and the nonce and sealed state of the forms they were shown, B's own (its two waiting approvals, its task), and
 * the nonces of nobody's a probe sends instead of A's.
 */
import { signedTaskUrl } from '../../shared/human-tasks/notices.ts';
import type { HumanTask } from '../../shared/schemas/human-task.ts';
import { startRefund } from '../graph/support.ts';
import { applyWorkflowText, awaitingApproval, type E2eStack, eventually, tokenOf } from './support.ts';
import { foreign, MISSING, ownB } from './tenancy-ids.ts';
import { asA, e2e, KEY_B, refundOfStack } from './tenancy-stack.ts';

/** The token of the signed link of `task`'s first assignee. */
const taskLinkOf = (task: HumanTask) =>
  tokenOf(signedTaskUrl(e2e.stack.url, e2e.keyring, task, task.assignees[0] ?? ''));

/** A's approval and human task, with their links and the forms A's approver and assignee were shown. */
export async function linksOfA(a: E2eStack): Promise<void> {
  const waitingA = await awaitingApproval(a, foreign.agentRun);
  foreign.approval = waitingA.approval.approvalId;
  foreign.approvalLink = tokenOf(waitingA.link);
  const task = await eventually('the open manager review', async () =>
    (await e2e.stack.store.listRunHumanTasks(foreign.graphRun)).find((t) => t.status === 'open'),
  );
  foreign.humanTask = task.taskId;
  foreign.humanTaskLink = taskLinkOf(task);
  // The forms A's approver and assignee were shown: B's probes post their nonce and sealed state.
  const approvalForm = await formOf(`/approvals/${foreign.approval}`, foreign.approvalLink);
  foreign.approvalNonce = approvalForm.nonce;
  foreign.approvalState = approvalForm.state ?? '';
  foreign.humanTaskNonce = (await formOf(`/human-tasks/${foreign.humanTask}`, foreign.humanTaskLink)).nonce;
  MISSING.approvalNonce = nonceOfNobody(foreign.approvalNonce, foreign.approval, MISSING.approval);
  MISSING.humanTaskNonce = nonceOfNobody(foreign.humanTaskNonce, foreign.humanTask, MISSING.humanTask);
}

/**
 * B's two runs waiting for approval, with their approver's signed links and the nonces of their rendered forms
 * (the approval pages' probes: a decision is made once, so its probe decides both); and B's graph run waiting
 * on a human task, with its assignee's link and the nonce of its rendered form.
 */
export async function linksOfB(b: E2eStack): Promise<void> {
  for (const suffix of ['', '2'] as const) {
    const gatedB = (await asA('POST', `/v1/workflows/${ownB.workflow}/runs`, { input: {} }, KEY_B)).run.runId;
    const waiting = await awaitingApproval(b, gatedB);
    const link = tokenOf(waiting.link);
    const approvalId = waiting.approval.approvalId;
    ownB[`approval${suffix}`] = approvalId;
    ownB[`approvalLink${suffix}`] = link;
    ownB[`approvalNonce${suffix}`] = (await formOf(`/approvals/${approvalId}`, link)).nonce;
  }
  const refundB = await applyWorkflowText(b, 'refund-large', refundOfStack());
  const graphRunB = await startRefund(b, refundB, 'My parcel never arrived. Customer c_99.');
  const taskB = await eventually("B's open manager review", async () =>
    (await e2e.stack.store.listRunHumanTasks(graphRunB)).find((t) => t.status === 'open'),
  );
  ownB.humanTask = taskB.taskId;
  ownB.humanTaskLink = taskLinkOf(taskB);
  ownB.humanTaskNonce = (await formOf(`/human-tasks/${taskB.taskId}`, ownB.humanTaskLink)).nonce;
}

/**
 * A nonce of the shape `nonce` has (`<claims>.<signature>`, a key of the stack's named) for a page of nobody's:
 * its claims name `missing` where they named `id`, under a signature no key made.
 */
function nonceOfNobody(nonce: string, id: string, missing: string): string {
  const claims = Buffer.from(nonce.split('.')[0] ?? '', 'base64url')
    .toString('utf8')
    .replaceAll(id, missing);
  return `${Buffer.from(claims, 'utf8').toString('base64url')}.${'B'.repeat(43)}`;
}

/** The nonce and sealed state (approval pages only) of the form on the page at `path` opened with link `t`. */
async function formOf(path: string, t: string): Promise<{ nonce: string; state?: string }> {
  const page = await fetch(`${e2e.stack.url}${path}?t=${encodeURIComponent(t)}`);
  const text = await page.text();
  const nonce = /name="nonce" value="([^"]+)"/.exec(text)?.[1];
  if (!nonce) throw new Error(`the page ${path} has no form nonce (${page.status})`);
  const state = /name="state" value="([^"]+)"/.exec(text)?.[1];
  return state === undefined ? { nonce } : { nonce, state };
}
