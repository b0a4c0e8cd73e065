/**
 * Approvals end to end on the local stack: the API through the CLI's client, the synthesized state machine,
 * the real Anthropic SDK against the scripted Messages-API server, and the approval pages over HTTP.
 * The side effect is a gated `notes_append`, counted in the store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signApprovalLink } from '../../shared/approvals/index.ts';
import {
  APPROVER,
  appendTurn,
  applyWorkflowText,
  awaitingApproval,
  createOwnTable,
  type E2eStack,
  type Fixture,
  gatedNotesWorkflow,
  getAudit,
  getRun,
  hiddenFields,
  noteLines,
  openPage,
  postForm,
  removeDir,
  runEnded,
  snapshot,
  startE2eStack,
  startRun,
  tempDataDir,
  tokenOf,
  toolResultFor,
  withToken,
} from './support.ts';

const fixtures: Fixture[] = [
  {
    name: 'e2e-approve',
    turns: [
      appendTurn('approved line'),
      {
        expect: { toolResults: [{ toolName: 'notes_append', contains: '1 line(s)', isError: false }] },
        text: 'Recorded.',
      },
    ],
  },
  {
    name: 'e2e-deny',
    turns: [
      appendTurn('denied line'),
      {
        expect: { toolResults: [{ toolName: 'notes_append', contains: 'denied this call', isError: true }] },
        text: 'Not recorded: denied.',
      },
    ],
  },
  // The race's winner is not known in advance: turn 1 only requires a result for the call.
  {
    name: 'e2e-race',
    turns: [
      appendTurn('race line'),
      { expect: { toolResults: [{ toolName: 'notes_append' }] }, text: 'Finished.' },
    ],
  },
  {
    name: 'e2e-links',
    turns: [
      appendTurn('links line'),
      {
        expect: { toolResults: [{ toolName: 'notes_append', contains: '1 line(s)', isError: false }] },
        text: 'Recorded.',
      },
    ],
  },
  { name: 'e2e-visitor', turns: [appendTurn('visitor line'), { text: 'Recorded.' }] },
];

let e2e: E2eStack;
let dataDir: string;
const workflows: Record<string, string> = {};

beforeAll(async () => {
  dataDir = await tempDataDir();
  e2e = await startE2eStack(await createOwnTable(), { dataDir, fixtures });
  for (const fixture of fixtures)
    workflows[fixture.name!] = await applyWorkflowText(e2e, fixture.name!, gatedNotesWorkflow(fixture.name!));
});

afterAll(async () => {
  await e2e?.stack.stop();
  await removeDir(dataDir);
});

/** A run of `workflow` parked on its approval, with the approver's link. */
async function pendingRun(workflow: string) {
  const runId = await startRun(e2e, workflows[workflow]!);
  return { runId, ...(await awaitingApproval(e2e, runId)) };
}

const decisionsIn = async (runId: string) =>
  (await getAudit(e2e, runId)).entries.filter((entry) => entry.type === 'approval_decided');

describe('Gated action, decided through the approval page', () => {
  it('approve: the gated action runs exactly once and the run ends done', async () => {
    // Prepare
    const { runId, link, approval } = await pendingRun('e2e-approve');
    const linesWhileWaiting = await noteLines(e2e, runId);

    // Act
    const form = await openPage(link);
    const decided = await postForm(form.action, { ...hiddenFields(form), decision: 'approve' });
    const run = await runEnded(e2e, runId);

    // Assess
    expect(linesWhileWaiting).toEqual([]);
    expect(decided.status).toBe(200);
    expect(run).toMatchObject({
      status: 'done',
      stopReason: 'end_turn',
      modelCalls: 2,
      result: { text: 'Recorded.' },
    });
    expect(run.error).toBeUndefined();
    expect(await noteLines(e2e, runId)).toEqual(['approved line']);
    expect(await e2e.stack.store.getApproval(approval.approvalId)).toMatchObject({
      status: 'approved',
      decidedBy: APPROVER,
    });
    const audit = await getAudit(e2e, runId);
    expect(audit.verification.ok).toBe(true);
    expect(await decisionsIn(runId)).toEqual([
      expect.objectContaining({
        actor: `approver:${APPROVER}`,
        data: expect.objectContaining({ decision: 'approved' }),
      }),
    ]);
  });

  it('deny: the model receives the denial, the action never runs, and the run finishes degraded (denied, delivered)', async () => {
    // Prepare
    const { runId, link, approval } = await pendingRun('e2e-deny');

    // Act
    const form = await openPage(link);
    const decided = await postForm(form.action, { ...hiddenFields(form), decision: 'deny' });
    const run = await runEnded(e2e, runId);

    // Assess: `end_turn` after 2 model calls means the fixture's expectation on turn 1 (an is_error result saying
    // "denied this call") held; a failed expectation is a 400 that fails the run with ModelBadRequestError.
    // The run finished its work but a call was refused: it ends `denied` (degraded), not a plain `done`.
    expect(decided.status).toBe(200);
    expect(run).toMatchObject({
      status: 'denied',
      stopReason: 'end_turn',
      modelCalls: 2,
      result: { text: 'Not recorded: denied.' },
      degraded: {
        count: 1,
        refused: [{ tool: 'notes_append', reason: `an approver (${APPROVER}) denied this call` }],
      },
      delivery: { destination: 'stored', status: 'delivered' },
    });
    expect(run.error).toBeUndefined();
    expect(await toolResultFor(e2e, runId, 'notes_append')).toEqual({
      content: expect.stringContaining(`an approver (${APPROVER}) denied this call`),
      isError: true,
    });
    expect(await noteLines(e2e, runId)).toEqual([]);
    expect(await e2e.stack.store.getApproval(approval.approvalId)).toMatchObject({
      status: 'denied',
      decidedBy: APPROVER,
    });
    expect((await getAudit(e2e, runId)).verification.ok).toBe(true);
    expect(await decisionsIn(runId)).toHaveLength(1);
  });

  it('GET only: a visitor that only GETs and HEADs the link decides nothing', async () => {
    // Prepare
    const { runId, link, approval } = await pendingRun('e2e-visitor');
    const before = await snapshot(e2e, runId, approval.approvalId);

    // Act: a mail scanner and a curious reader, many times over.
    const answers: number[] = [];
    for (let i = 0; i < 10; i++) {
      const response = await fetch(link, { method: i % 3 === 2 ? 'HEAD' : 'GET' });
      await response.arrayBuffer();
      answers.push(response.status);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = await snapshot(e2e, runId, approval.approvalId);

    // Assess
    expect(answers).toEqual(Array(10).fill(200));
    expect(after).toEqual(before);
    expect(after.status).toBe('awaiting_approval');
    expect(after.approval?.status).toBe('pending');
    expect(await noteLines(e2e, runId)).toEqual([]);
    expect((await getAudit(e2e, runId)).verification.ok).toBe(true);
  });
});

describe('Double click: two concurrent POSTs of the same form', () => {
  it.each([
    ['approve', 'approve'],
    ['approve', 'deny'],
  ] as const)('%s + %s: exactly one decision is recorded; one 200, one 409', async (first, second) => {
    // Prepare
    const { runId, link, approval } = await pendingRun('e2e-race');
    const form = await openPage(link);

    // Act
    const answers = await Promise.all(
      [first, second].map(async (decision) => ({
        decision,
        ...(await postForm(form.action, { ...hiddenFields(form), decision })),
      })),
    );
    const run = await runEnded(e2e, runId);

    // Assess
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(answers.find((answer) => answer.status === 409)?.page).toContain('Already decided');
    const winner = answers.find((answer) => answer.status === 200)!.decision;
    const decided = await e2e.stack.store.getApproval(approval.approvalId);
    expect(decided?.status).toBe(winner === 'approve' ? 'approved' : 'denied');
    expect(await decisionsIn(runId)).toHaveLength(1);
    expect(run).toMatchObject({ status: winner === 'approve' ? 'done' : 'denied', modelCalls: 2 });
    expect(await noteLines(e2e, runId)).toEqual(winner === 'approve' ? ['race line'] : []);
    expect((await getAudit(e2e, runId)).verification.ok).toBe(true);
  });
});

describe('Bad links change nothing', () => {
  let target: Awaited<ReturnType<typeof pendingRun>>;
  let other: Awaited<ReturnType<typeof pendingRun>>;

  beforeAll(async () => {
    [target, other] = await Promise.all([pendingRun('e2e-links'), pendingRun('e2e-links')]);
  });

  const tamper = (token: string) => {
    const [payload, mac] = token.split('.') as [string, string];
    return `${payload}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
  };
  const signed = (overrides: { approver?: string; expiresAtMs?: number; secret?: string }) =>
    signApprovalLink(
      {
        approvalId: target.approval.approvalId,
        approver: overrides.approver ?? APPROVER,
        expiresAtMs: overrides.expiresAtMs ?? Date.parse(target.approval.expiresAt),
        argsHash: target.approval.argsHash,
      },
      overrides.secret
        ? { current: { kid: e2e.keyring.current.kid, secret: overrides.secret }, previous: [] }
        : e2e.keyring,
    );

  it.each([
    { label: 'forged signature (MAC altered)', token: () => tamper(tokenOf(target.link)), status: 403 },
    {
      label: 'signed with a key the server does not hold',
      token: () => signed({ secret: 'an-attackers-secret-of-at-least-32-chars' }),
      status: 403,
    },
    {
      label: 'expired link (validly signed, past expiry)',
      token: () => signed({ expiresAtMs: Date.now() - 1000 }),
      status: 410,
    },
    { label: "another approval's link", token: () => tokenOf(other.link), status: 403 },
    {
      label: 'validly signed for someone who is not an approver',
      token: () => signed({ approver: 'mallory@example.com' }),
      status: 403,
    },
  ])('$label: GET and POST answer $status', async ({ token, status }) => {
    // Prepare: a genuine form nonce, so only the link is at fault.
    const { action, nonce } = await openPage(target.link);
    const before = await snapshot(e2e, target.runId, target.approval.approvalId);
    const bad = token();

    // Act
    const page = await fetch(withToken(target.link, bad));
    await page.arrayBuffer();
    const approve = await postForm(action, { t: bad, nonce, decision: 'approve' });
    const deny = await postForm(action, { t: bad, nonce, decision: 'deny' });
    const after = await snapshot(e2e, target.runId, target.approval.approvalId);

    // Assess
    expect([page.status, approve.status, deny.status]).toEqual([status, status, status]);
    expect(after).toEqual(before);
    expect(after.approval?.status).toBe('pending');
  });

  it('a replayed link and form after the decision get 409 and change nothing', async () => {
    // Prepare: decide once, and let the run finish.
    const form = await openPage(target.link);
    expect((await postForm(form.action, { ...hiddenFields(form), decision: 'approve' })).status).toBe(200);
    const run = await runEnded(e2e, target.runId);
    const before = await snapshot(e2e, target.runId, target.approval.approvalId);

    // Act
    const replayedPost = await postForm(form.action, { ...hiddenFields(form), decision: 'approve' });
    const replayedDeny = await postForm(form.action, { ...hiddenFields(form), decision: 'deny' });
    const replayedGet = await fetch(target.link);
    const after = await snapshot(e2e, target.runId, target.approval.approvalId);

    // Assess
    expect([replayedPost.status, replayedDeny.status, replayedGet.status]).toEqual([409, 409, 409]);
    expect(await replayedGet.text()).toContain('Already decided');
    expect(after).toEqual(before);
    expect(run).toMatchObject({ status: 'done', modelCalls: 2 });
    expect(await noteLines(e2e, target.runId)).toEqual(['links line']);
    expect(await decisionsIn(target.runId)).toHaveLength(1);
    expect((await getAudit(e2e, target.runId)).verification.ok).toBe(true);
    // The other run was never touched by the links aimed at it.
    expect((await getRun(e2e, other.runId)).status).toBe('awaiting_approval');
  });
});
