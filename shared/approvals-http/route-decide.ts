/**
 * `POST /approvals/:approvalId` (form `t`, `nonce`, `decision`): verify the link, then the nonce against the
 * link's approver, then decide once (a conditional write). The approver is the link's, never the form's.
 */

import type { Context } from 'hono';
import {
  checkWithKeyring,
  type Keyring,
  keyringSourceOf,
  verifyApprovalLink,
  verifyFormNonce,
} from '../approvals/index.ts';
import { decideApproval } from '../core/approval-ops.ts';
import { cutText } from '../core/byte-caps.ts';
import { ApprovalAlreadyDecidedError, WorkflowHeadChangedError } from '../core/store-errors.ts';
import type { AppContext } from './app-context.ts';
import { TaskTokenSendError } from './errors.ts';
import { FORM_STATE_MAX_CHARS, openFormState, type PageLoad } from './form-state.ts';
import { loadForLink } from './load.ts';
import { readHintsOf } from './read-hints.ts';
import {
  closedResult,
  crossSiteRefused,
  decidedElsewhere,
  linkRefused,
  nonceRefused,
  outcome,
  type PageResult,
  resultResponse,
  workflowChanged,
} from './results.ts';
import { crossSiteReason, pageOrigin } from './same-origin.ts';
import { grantStateOf } from './still-granted.ts';

/**
 * Larger than any valid form (two tokens of at most 4 KiB each and a state of at most FORM_STATE_MAX_CHARS);
 * bigger bodies are refused unread.
 */
export const MAX_FORM_BYTES = 16 * 1024 + FORM_STATE_MAX_CHARS;

type Form = { t?: string; nonce?: string; decision?: string; state?: string };

/** The fields of an urlencoded form; undefined when the body is not one or repeats a field. */
async function readForm(c: Context): Promise<Form | undefined> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return undefined;
  const params = new URLSearchParams(await c.req.text());
  const form: Form = {};
  for (const name of ['t', 'nonce', 'decision', 'state'] as const) {
    const values = params.getAll(name);
    if (values.length > 1) return undefined;
    if (values[0] !== undefined) form[name] = values[0];
  }
  return form;
}

const DECISIONS = { approve: 'approved', deny: 'denied' } as const;

/** The approval and run the form's state carries; none (the decision reads) when it does not open. */
function openState(
  deps: AppContext,
  state: string,
  nonce: string,
  claims: { approvalId: string; approver: string },
  keyring: Keyring,
): PageLoad | undefined {
  const opened = openFormState(
    state,
    { approvalId: claims.approvalId, approver: claims.approver, nonce },
    keyring,
  );
  if (opened.ok) return opened.load;
  deps.logger.warn('approval form state ignored', { approvalId: claims.approvalId, reason: opened.reason });
  return undefined;
}

/** After a refused decision: re-read the record to say who decided, or that it expired or the run ended. */
async function whyRefused(deps: AppContext, approvalId: string, nowMs: number): Promise<PageResult> {
  const approval = await deps.store.getApproval(approvalId);
  if (approval === undefined) return outcome({ kind: 'unknown_approval' });
  const run = await deps.store.getRun(approval.runId);
  return closedResult(approval, run, nowMs) ?? decidedElsewhere;
}

/** Records the decision, resumes the waiting execution if it was the last one pending. */
export function decideHandler(deps: AppContext) {
  const expectedOrigin = pageOrigin(deps.publicBaseUrl);
  return async (c: Context): Promise<Response> => {
    const approvalId = c.req.param('approvalId') ?? '';
    // Before the body is read: a cross-site form changes nothing, whatever link it carries.
    const crossSite = crossSiteReason(c.req.raw.headers, expectedOrigin);
    if (crossSite !== undefined) {
      deps.logger.warn('approval decision refused as cross-site', {
        approvalId: cutText(approvalId, 80),
        reason: crossSite,
      });
      return resultResponse(crossSiteRefused);
    }
    const form = await readForm(c);
    if (form === undefined) return resultResponse(outcome({ kind: 'invalid_request' }));
    const nowMs = deps.clock.nowMs();
    const source = keyringSourceOf(deps.keyring);
    const { result: link } = await checkWithKeyring(source, (ring) =>
      verifyApprovalLink(form.t, ring, { nowMs, approvalId }),
    );
    if (!link.ok) {
      deps.logger.warn('approval link refused', { approvalId: cutText(approvalId, 80), reason: link.reason });
      return resultResponse(linkRefused(link.reason));
    }
    const { approver } = link.claims;
    // Own keys only: `decision=toString` must not find Object.prototype's.
    const decision =
      form.decision !== undefined && Object.hasOwn(DECISIONS, form.decision)
        ? DECISIONS[form.decision as keyof typeof DECISIONS]
        : undefined;
    if (decision === undefined || form.nonce === undefined || form.nonce === '') {
      return resultResponse(outcome({ kind: 'invalid_request' }));
    }
    const formNonce = form.nonce;
    const { result: nonce, keyring } = await checkWithKeyring(source, (ring) =>
      verifyFormNonce(formNonce, ring, { approvalId, approver, nowMs }),
    );
    if (!nonce.ok) {
      deps.logger.warn('approval form nonce refused', { approvalId, reason: nonce.reason });
      return resultResponse(nonceRefused(nonce.reason));
    }
    // The approval and run the page read, from the form's sealed state (form-state.ts: the commit below is
    // conditional on them, and a stale copy is read again); without a usable one, the form action names the run
    // (`?run=`), so the approval and its run are one read.
    const { runId: runIdHint } = readHintsOf((name) => c.req.query(name));
    const carried =
      form.state === undefined ? undefined : openState(deps, form.state, formNonce, link.claims, keyring);
    const loaded = await loadForLink(deps, link.claims, nowMs, { runId: runIdHint }, carried);
    if (!loaded.ok) return resultResponse(loaded.result);

    // An approval is recorded only while the workflow head is still at the revision the page was rendered with
    // (signed into the nonce): what the page said about the action still holds, and the head is not read again.
    // A denial needs no such condition: it is right whatever changed.
    const pageHead = decision === 'approved' ? nonce.head : undefined;
    // Named on each line below: a decision on the approval and run its page read (form-state.ts) reads no run,
    // so the shell's store observer has not put the owner on the invocation's lines.
    const { owner, workflowId } = loaded.approval;
    let decided: Awaited<ReturnType<typeof decideApproval>>;
    try {
      // The approval and run just loaded serve the decision's first try (no second read of either).
      decided = await decideApproval(
        deps,
        {
          approvalId,
          approver,
          decision,
          ...(pageHead ? { headAt: { owner, workflowId, rev: pageHead.rev } } : {}),
        },
        loaded,
      );
    } catch (error) {
      if (error instanceof WorkflowHeadChangedError) {
        deps.logger.info('approval refused: the workflow changed since the page', {
          approvalId,
          owner,
          approver,
        });
        return resultResponse(workflowChanged);
      }
      if (!(error instanceof ApprovalAlreadyDecidedError)) throw error;
      deps.logger.info('approval decision refused', { approvalId, owner, approver, status: error.status });
      return resultResponse(await whyRefused(deps, approvalId, nowMs));
    }
    const runId = decided.approval.runId;
    deps.logger.info('approval decided', { approvalId, runId, owner, approver, decision });
    if (decided.resumeToken !== undefined) {
      try {
        const answer = await deps.taskTokens.sendSuccess(decided.resumeToken, {
          runId,
          decidedApprovalId: approvalId,
        });
        // already_closed: the wait timed out or was replaced; the decision is recorded and the next Turn reads it.
        deps.logger.info('approval wait answered', { approvalId, runId, owner, answer });
      } catch (error) {
        // Recorded all the same: the wait ends at its timeout, and Expire → Turn then reads this decision.
        deps.logger.error('could not resume the run after a decision', {
          approvalId,
          runId,
          owner,
          // A port's own error could quote the token; only ours is known to be safe to print.
          error: error instanceof TaskTokenSendError ? error.message : (error as Error).name,
        });
      }
    }
    // Never "the run performs it" for an action that was withdrawn since the request (the Turn will refuse
    // it), nor "it will not run" when that could not be told (a delegated job's grant, a lookup fault). With
    // the page's head revision, the decision was recorded at that revision: the page's answer is the answer.
    const grant =
      decision !== 'approved'
        ? 'granted'
        : (pageHead?.grant ?? (await grantStateOf(deps.store, decided.approval)));
    const kind =
      grant === 'withdrawn' ? 'approved_withdrawn' : grant === 'unknown' ? 'approved_unchecked' : decision;
    return resultResponse(outcome({ kind }));
  };
}
