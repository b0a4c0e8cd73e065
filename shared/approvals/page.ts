import { checkPostUrl, escapeHtml, formatInstant, jsonBlock, page, text } from './html.ts';
import { argsHash } from './link.ts';

/** Everything the approval page shows. All strings are untrusted and escaped on output. */
export type ApprovalPageView = {
  /** The owner whose run asks: an approver serving several owners must see whose call they decide. */
  owner: string;
  workflowName: string;
  workflowId: string;
  version: string | number;
  runId: string;
  tool: string;
  toolDescription: string;
  /** For an HTTP action: the method and URL the call will hit. */
  target?: { method: string; url: string };
  /** The exact arguments the action will run with if approved. */
  args: Record<string, unknown>;
  /** The model's stated reason: its own words, not verified by anyone. */
  reason: string;
  /** A graph run's service step asks (no model): which step and attempt. */
  step?: { stepId: string; attempt: number } | undefined;
  approver: string;
  expiresAtIso: string;
  /** The link token (hidden form field `t`). */
  token: string;
  /** The form nonce (hidden form field `nonce`). */
  nonce: string;
  /**
   * What the page read, sealed for the decision (hidden form field `state`, shared/approvals-http/form-state.ts);
   * none when it would be too large (the decision then reads).
   */
  state?: string | undefined;
  /** Where the form posts: a same-origin path (`/…`) or an http(s) URL (see `approvalPostUrl`). */
  postUrl: string;
  /** `withdrawn`: the action left the effective grant since the request; approving will not make it run. */
  flags: { irreversible: boolean; externalPublish: boolean; withdrawn?: boolean };
};

function warnings(flags: ApprovalPageView['flags']): string {
  const out: string[] = [];
  if (flags.withdrawn) {
    out.push(
      '<p class="warn">This action has been withdrawn from the workflow since it was requested (a newer version no longer allows it, or the workflow was disabled). If you approve, your decision is recorded but the action will not run.</p>',
    );
  }
  if (flags.irreversible) out.push('<p class="warn">This action cannot be undone.</p>');
  if (flags.externalPublish) {
    out.push('<p class="warn">This action publishes or sends content outside your organisation.</p>');
  }
  return out.join('\n');
}

/** `METHOD scheme://host/path`, the host emphasised: where the request goes is what an approver checks first. */
function targetLine(target: { method: string; url: string }): string {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return `<p id="target"><code>${text(target.method)}</code> <code>${text(target.url)}</code></p>`;
  }
  const rest = `${url.pathname}${url.search}`;
  return `<p id="target">Calls <code>${text(target.method)}</code> <code>${text(`${url.protocol}//`)}<strong class="host">${text(url.host)}</strong>${text(rest)}</code></p>`;
}

/** String arguments that hold line breaks or run long, as they read (the JSON above shows them escaped). */
function textArguments(args: Record<string, unknown>): string {
  const long = Object.entries(args).filter(
    ([, value]) => typeof value === 'string' && (value.includes('\n') || value.length > 120),
  );
  return long
    .map(([name, value]) => `<h3>${text(name)}</h3>\n<pre class="text-arg">${text(value as string)}</pre>`)
    .join('\n');
}

/** The confirmation page behind an approval link: who asks, what exactly would run, and the decision form. */
export function renderApprovalPage(view: ApprovalPageView): string {
  checkPostUrl(view.postUrl);
  const reason = view.step
    ? `<h2>Who asks</h2>
<p>Step <code>${text(view.step.stepId)}</code> (attempt ${text(String(view.step.attempt))}) of this graph run: its published definition makes this call with arguments templated from the run's data. No model proposed it.</p>`
    : `<h2>The model's stated reason</h2>
<p class="muted">Written by the model, not verified. Judge the action by its arguments above.</p>
${
  view.reason.trim() === ''
    ? '<p class="muted">The model gave no reason.</p>'
    : `<blockquote>${text(view.reason)}</blockquote>`
}`;
  const body = `
<div class="card">
<h1>Approval requested</h1>
<p>A workflow run of owner <strong>${text(view.owner)}</strong> wants to perform an action that needs your approval. Nothing happens until you decide.</p>
${warnings(view.flags)}
<dl>
<dt>Owner (who asks)</dt><dd id="owner"><code>${text(view.owner)}</code></dd>
<dt>Workflow</dt><dd>${text(view.workflowName)} <span class="muted">(<code>${text(view.workflowId)}</code>, version ${text(String(view.version))})</span></dd>
<dt>Run</dt><dd><code>${text(view.runId)}</code></dd>
${view.step ? `<dt>Step</dt><dd><code>${text(view.step.stepId)}</code> (attempt ${text(String(view.step.attempt))})</dd>` : ''}
<dt>Approver</dt><dd>${text(view.approver)}</dd>
<dt>Link expires</dt><dd><time datetime="${escapeHtml(view.expiresAtIso)}">${text(formatInstant(view.expiresAtIso))}</time></dd>
</dl>
</div>
<div class="card">
<h2>Action</h2>
<p><code>${text(view.tool)}</code></p>
<p class="muted">${text(view.toolDescription)}</p>
${view.target ? targetLine(view.target) : ''}
<h2>Arguments</h2>
<p class="muted">If you approve, the action runs with exactly these arguments.</p>
<pre id="args">${jsonBlock(view.args)}</pre>
${textArguments(view.args)}
<p class="muted">Fingerprint (SHA-256): <code>${argsHash(view.tool, view.args)}</code></p>
${reason}
</div>
<div class="card">
<form method="post" action="${escapeHtml(view.postUrl)}">
<input type="hidden" name="t" value="${escapeHtml(view.token)}">
<input type="hidden" name="nonce" value="${escapeHtml(view.nonce)}">
${view.state === undefined ? '' : `<input type="hidden" name="state" value="${escapeHtml(view.state)}">\n`}<p>Decide as <strong>${text(view.approver)}</strong>. Your decision is recorded in the run's audit log.</p>
<div class="actions">
<button class="approve" type="submit" name="decision" value="approve">Approve</button>
<button class="deny" type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
</div>`;
  return page(`Approval requested by ${view.owner}: ${view.tool} (${view.workflowName})`, body);
}
