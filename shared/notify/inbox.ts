/** A local "inbox": notices kept in memory and listed as an HTML page (served at `/local/inbox`). */
import { escapeHtml } from '../approvals/index.ts';
import { type ApprovalNotice, type Notifier, visible } from './notice.ts';
import type { OwnerNotice, OwnerNotifier } from './owner-notice.ts';

/** A notifier that keeps the latest approval and owner notices in memory, newest last. */
export type InboxNotifier = Notifier &
  OwnerNotifier & {
    /** The kept approval notices, oldest first. */
    notices(): readonly ApprovalNotice[];
    /** The kept owner notices (failed, denied, expired, undeliverable), oldest first. */
    ownerNotices(): readonly OwnerNotice[];
    clear(): void;
  };

/**
 * Keeps up to `max` notices of each kind per owner (default 200; that owner's oldest are dropped), so one owner's
 * burst of notices does not push another owner's live links out, and up to `maxTotal` of each kind in all
 * (default 5,000; the oldest of any owner dropped), so a local stack with many owners does not grow either.
 */
export function inboxNotifier(options: { max?: number; maxTotal?: number } = {}): InboxNotifier {
  const max = options.max ?? 200;
  const maxTotal = options.maxTotal ?? 5_000;
  const kept: ApprovalNotice[] = [];
  const owners: OwnerNotice[] = [];
  const keep = <T extends { owner: string }>(list: T[], item: T) => {
    list.push(item);
    let excess = list.filter((other) => other.owner === item.owner).length - max;
    for (let i = 0; excess > 0 && i < list.length; ) {
      if (list[i]!.owner === item.owner) {
        list.splice(i, 1);
        excess--;
      } else i++;
    }
    if (list.length > maxTotal) list.splice(0, list.length - maxTotal);
  };
  return {
    channel: 'inbox',
    // The inbox lists every approver's links (to their owner): everyone is reachable locally.
    reaches: () => true,
    async notify(notice) {
      keep(kept, { ...notice });
    },
    async notifyOwner(notice) {
      keep(owners, { ...notice, ...(notice.refused ? { refused: [...notice.refused] } : {}) });
    },
    notices: () => kept.map((notice) => ({ ...notice })),
    ownerNotices: () => owners.map((notice) => ({ ...notice })),
    clear: () => {
      kept.length = 0;
      owners.length = 0;
    },
  };
}

function ownerItem(notice: OwnerNotice): string {
  const refused = (notice.refused ?? []).map((r) => `${t(r.tool)}: ${t(r.reason)}`).join('<br>');
  return `<li>
<strong>${t(notice.kind.replaceAll('_', ' '))}</strong> in <strong>${t(notice.workflowName)}</strong><br>
<span class="muted">run <code>${t(notice.runId)}</code> · ${t(notice.status)}${notice.stopReason ? ` (${t(notice.stopReason)})` : ''}</span><br>
${t(notice.reason)}${refused ? `<br><span class="muted">refused: ${refused}</span>` : ''}<br>
<code>${t(notice.runUrl)}</code>
</li>`;
}

const t = (value: string) => escapeHtml(visible(value));

function item(notice: ApprovalNotice, nowMs: number | undefined): string {
  const expiresMs = Date.parse(notice.expiresAt);
  const expired = nowMs !== undefined && !Number.isNaN(expiresMs) && nowMs >= expiresMs;
  const linkable = /^https?:\/\//i.test(notice.url);
  const link =
    expired || !linkable
      ? `<span class="muted">${expired ? 'link expired' : 'unusable link'}</span>`
      : `<a href="${escapeHtml(notice.url)}" rel="noreferrer">Open the ${notice.subject === 'human_task' ? 'task form' : 'approval page'}</a>`;
  return `<li${expired ? ' class="expired"' : ''}>
<strong>${t(notice.tool)}</strong> in <strong>${t(notice.workflowName)}</strong> for <strong>${t(notice.approver)}</strong><br>
<span class="muted">run <code>${t(notice.runId)}</code> · expires ${t(notice.expiresAt)}</span><br>
<code>${t(notice.argsPreview)}</code><br>
${link}
</li>`;
}

const STYLE = `body{margin:0;background:#f4f5f7;color:#1c1e21;font:16px/1.5 system-ui,sans-serif}
main{max-width:46rem;margin:2rem auto;padding:0 1rem}
ul{list-style:none;padding:0}
li{background:#fff;border:1px solid #d8dbe0;border-radius:8px;padding:1rem;margin-bottom:.75rem;overflow-wrap:anywhere}
li.expired{opacity:.6}
code{font:14px ui-monospace,monospace}
.muted{color:#5f6670;font-size:.9rem}`;

/**
 * The inbox page: newest first; with `nowMs`, expired links are shown without a link. No script. The page
 * holds live links: serve it on loopback only, with `APPROVAL_PAGE_HEADERS` (no-store, no-referrer, CSP).
 */
export function renderInbox(
  notices: readonly ApprovalNotice[],
  options: { nowMs?: number; owner?: string; ownerNotices?: readonly OwnerNotice[] } = {},
): string {
  const runNotices = [...(options.ownerNotices ?? [])].reverse().map(ownerItem);
  const items = [...notices].reverse().map((notice) => item(notice, options.nowMs));
  const list =
    items.length === 0
      ? '<p class="muted">No approval requests yet.</p>'
      : `<ul>\n${items.join('\n')}\n</ul>`;
  return page('Local approval inbox', [
    '<h1>Local approval inbox</h1>',
    ...(options.owner === undefined
      ? []
      : [
          `<form method="post" action="/local/session/end"><p class="muted">Signed in as owner <strong>${t(options.owner)}</strong>: only this owner's requests are listed. <button type="submit">Sign out</button></p></form>`,
        ]),
    '<p class="muted">Approval links sent by this local stack (each link decides as its approver). Opening a link changes nothing; only its page’s buttons decide.</p>',
    list,
    ...(runNotices.length === 0
      ? []
      : [
          '<h2>Run notices</h2>',
          '<p class="muted">Runs that failed or ended denied, and approvals that expired or reached no approver. The link is the run in the API (it needs your API key).</p>',
          `<ul>\n${runNotices.join('\n')}\n</ul>`,
        ]),
  ]);
}

/** The sign-in page of the inbox: an owner's API key, posted to `/local/session` (same origin only). */
export function renderInboxSignIn(options: { refused?: boolean } = {}): string {
  return page('Sign in: local approval inbox', [
    '<h1>Local approval inbox</h1>',
    '<p>The inbox lists live approval links, so it shows each owner only their own. Sign in with your API key (in <code>.local/api-keys.json</code>, printed by <code>wf local up</code>).</p>',
    ...(options.refused ? ['<p class="muted"><strong>That key was not accepted.</strong></p>'] : []),
    '<form method="post" action="/local/session">',
    '<label>API key <input type="password" name="key" autocomplete="off" required></label>',
    '<button type="submit">Sign in</button>',
    '</form>',
  ]);
}

function page(title: string, body: readonly string[]): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<meta name="robots" content="noindex,nofollow">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<main>',
    ...body,
    '</main>',
    '</body>',
    '</html>',
  ].join('\n');
}
