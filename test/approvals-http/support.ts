/** Test support: a run parked on an approval, the approval app on it, and helpers to drive the pages. */
import { randomUUID } from 'node:crypto';
import { createActionCatalog } from '../../shared/actions/index.ts';
import type { Keyring } from '../../shared/approvals/index.ts';
import { createApprovalApp } from '../../shared/approvals-http/app.ts';
import type { ApprovalLogger } from '../../shared/approvals-http/deps.ts';
import { requestApproval } from '../../shared/approvals-http/request-approval.ts';
import { sfnTaskTokens } from '../../shared/approvals-http/task-tokens.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import type { DynamoStore } from '../../shared/store/index.ts';
import { engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import type { SfnWire } from './sfn-wire.ts';

export const store: DynamoStore = testStore();

export const keyring: Keyring = {
  current: { kid: 'k2026', secret: 'approval-test-secret-2026-aaaaaaaaaaaaaaaa' },
  previous: [{ kid: 'k2025', secret: 'approval-test-secret-2025-bbbbbbbbbbbbbbbb' }],
};
export const OTHER_KEYRING: Keyring = {
  current: { kid: 'k2026', secret: 'not-the-deployments-secret-cccccccccccccccc' },
};

export const PUBLIC_BASE = 'http://127.0.0.1:8787';
export const BOSS = 'boss@example.com';
export const OPS = 'ops@example.com';
/** Arguments with characters HTML must escape: the page has to show exactly these. */
export const ARGS = { name: 'deploy-log', line: 'ship <v2> & "notify" the \'team\'' };
export const REASON = 'The release checklist says to log <every> deploy.';

/** A log that keeps every line as JSON text, to assert that no token ever appears in it. */
export function recordingLogger(): ApprovalLogger & { lines: string[] } {
  const lines: string[] = [];
  const record = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push(JSON.stringify({ level, message, ...fields }));
  return { lines, info: record('info'), warn: record('warn'), error: record('error') };
}

/** Parks a new run on one `needs_approval` call of `notes_append` with ARGS, as the Turn does. */
export async function parkRun(clock: FixedClock, approvers: string[] = [BOSS], timeoutSeconds = 600) {
  const workflow = minimalWorkflow({
    name: 'release-notes',
    gates: { notes_append: 'needs_approval' },
    approvals: { approvers, timeoutSeconds },
  });
  const { version } = await seedWorkflow(store, workflow, { clock });
  const created = await seedRun(store, version, { clock });
  const model = new ScriptedModel([
    { content: [text(REASON), toolUse('g1', 'notes_append', ARGS)], stopReason: 'tool_use' },
    { content: [text('finished')], stopReason: 'end_turn' },
  ]);
  const deps = engineDeps(store, model, { clock });
  const waiting = await runTurn(deps, { runId: created.runId, turn: 0, segmentStartTurn: 0 });
  const run = (await store.getRun(created.runId))!;
  const approval = (await store.getApproval(run.pendingApprovalIds[0]!))!;
  return { run, approval, deps, waiting };
}

/** A parked run whose wait has a task token and whose approvers were sent links (to an inbox). */
/** `pagesStore`: the store the approval pages use (default: the scenario's own), e.g. one whose lookups fail. */
export async function approvalScenario(
  wire: SfnWire,
  approvers: string[] = [BOSS],
  pagesStore: DynamoStore = store,
) {
  const clock = new FixedClock();
  const parked = await parkRun(clock, approvers);
  const logger = recordingLogger();
  const taskTokens = sfnTaskTokens(wire.client, { sleep: async () => {} });
  const inbox = inboxNotifier();
  const taskToken = `task-token-${randomUUID()}`;
  await requestApproval(
    { store, clock, keyring, publicBaseUrl: PUBLIC_BASE, notifier: inbox, taskTokens, logger },
    { runId: parked.run.runId, taskToken },
  );
  const app = createApprovalApp({
    store: pagesStore,
    clock,
    keyring,
    taskTokens,
    publicBaseUrl: PUBLIC_BASE,
    actions: createActionCatalog({ notes: store }),
    logger,
  });
  const linkOf = (approver: string) => {
    const url = new URL(inbox.notices().find((notice) => notice.approver === approver)!.url);
    return { path: `${url.pathname}${url.search}`, token: url.searchParams.get('t')! };
  };
  return { ...parked, clock, logger, inbox, taskToken, app, linkOf, approvalId: parked.approval.approvalId };
}

export type Scenario = Awaited<ReturnType<typeof approvalScenario>>;

/**
 * A store of its own (as an approval-http container has) whose requests are recorded: the command without
 * `Command`, a BatchGetItem with its items' kinds (`BatchGetItem APR,RUN`).
 */
export function countedStore(): DynamoStore & { sent: string[] } {
  const pages = testStore() as DynamoStore & { sent: string[] };
  pages.sent = [];
  pages.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName).replace(/Command$/, '');
      const input = args.input as { RequestItems?: Record<string, { Keys: { sk: string }[] }> };
      const kinds = Object.values(input.RequestItems ?? {}).flatMap((table) =>
        table.Keys.map((key) => key.sk.split('#')[0]),
      );
      pages.sent.push(kinds.length > 0 ? `${name} ${kinds.join(',')}` : name);
      return next(args);
    },
    { step: 'initialize', name: 'pageRequests' },
  );
  return pages;
}

/** Everything a request could change: the approval item, the run item and the audit chain length. */
export async function snapshot(runId: string, approvalId: string) {
  return {
    approval: await store.getApproval(approvalId),
    run: await store.getRun(runId),
    auditCount: (await store.listAudit(runId)).length,
  };
}

/** The hidden nonce of a rendered approval form. */
export function nonceOf(html: string): string {
  const match = /name="nonce" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('the page has no form nonce');
  return match[1]!;
}

/** The hidden sealed state of a rendered approval form (form-state.ts); none when the page carries none. */
export function stateOf(html: string): string | undefined {
  return /name="state" value="([^"]+)"/.exec(html)?.[1];
}

/** The hidden fields a browser posts with the clicked button: the link token, the nonce and the state. */
export function hiddenFieldsOf(html: string, token: string): Record<string, string> {
  const state = stateOf(html);
  return { t: token, nonce: nonceOf(html), ...(state === undefined ? {} : { state }) };
}

/** POSTs an urlencoded form, as the page's form does. */
export function postForm(app: Scenario['app'], approvalId: string, fields: Record<string, string>) {
  return app.request(`/approvals/${approvalId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Opens the link, reads the form, and posts a decision with the page's own hidden fields, as a browser does. */
export async function decide(s: Scenario, decision: 'approve' | 'deny', approver = BOSS) {
  const link = s.linkOf(approver);
  const page = await s.app.request(link.path);
  return postForm(s.app, s.approvalId, { ...hiddenFieldsOf(await page.text(), link.token), decision });
}

/** The text of an HTML page's first <h1>. */
export const headingOf = (html: string): string => /<h1>([^<]*)<\/h1>/.exec(html)?.[1] ?? '';

/** Undoes the escaping of `escapeHtml`, to read a value back out of the page. */
export const unescapeHtml = (value: string): string =>
  value
    .replace(/<span class="ctl"[^>]*>([^<]*)<\/span>/g, '$1')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');
