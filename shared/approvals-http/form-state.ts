/**
 * The decision form's `state`: the approval and its run as the page read them, sealed (sealed-token.ts) into a
 * hidden field, so the decision POST commits on them without reading either again, on whichever container it
 * lands: API Gateway and Lambda give a POST no affinity to the container that served its page (Lambda "may reuse"
 * an environment for a "non-deterministic period",
 * https://docs.aws.amazon.com/lambda/latest/operatorguide/execution-environments.html, and a function "should
 * assume that the environment exists only for a single invocation",
 * https://docs.aws.amazon.com/lambda/latest/operatorguide/statelessness-functions.html). The offline check:
 * test/approvals-http/form-state.test.ts decides on a fresh app instance in one request.
 *
 * Why a carried read is as good as a fresh one: the decision is a commit conditional on the run's revision and
 * on the approval still `pending` with the task token as read (core/approval-ops.ts `decideApproval`,
 * store/commit.ts). A state that went stale (the run moved, the approval was decided, its token replaced) fails
 * that commit, nothing is written, and `decideApproval` reads both again before its next try, as after any lost
 * race. What the link is checked against (approvers, expiry, the arguments' hash) never changes on a stored
 * approval, and the state is checked against the link like a fresh read (load.ts).
 *
 * Why the browser cannot use it to decide anything: it is sealed with a key derived from the deployment's
 * signing secret (a forged or altered state does not open), bound to the approval, the link's approver and the
 * page's form nonce (it opens only beside them, and so only while that nonce is valid: 15 minutes), and it is
 * read only after the link and the nonce verified. It is encrypted, not only signed: it holds the approval's task
 * token, which is never shown in clear. A state that does not open, or does not name this approval, is ignored
 * and the decision reads, as a form without one (a page of an earlier release, an API client) does.
 */
import { type Keyring, openSealedToken, type SealedTokenFailure, sealToken } from '../approvals/index.ts';
import { type Approval, ApprovalSchema } from '../schemas/approval.ts';
import { type Run, RunSchema } from '../schemas/run.ts';
import * as z from '../zod.ts';

/** The sealed field's domain: no other sealed token opens as a form state. */
export const FORM_STATE_DOMAIN = 'wf-approval/v1/form-state\n';

/**
 * The largest state a page carries (characters). An approval whose arguments (or a run whose item) make it
 * larger gets a form without one: its decision reads the approval and run, one request more.
 */
export const FORM_STATE_MAX_CHARS = 24 * 1024;

/** An approval and its run as a page read them. */
export type PageLoad = { approval: Approval; run: Run };

const PageLoadSchema = z.strictObject({ approval: ApprovalSchema, run: RunSchema });

/** What a state is bound to: it opens only with the same three. */
export type FormStateBinding = { approvalId: string; approver: string; nonce: string };

/** The page's read, sealed for its form; undefined when it would be larger than FORM_STATE_MAX_CHARS. */
export function sealFormState(
  load: PageLoad,
  binding: FormStateBinding,
  keyring: Keyring,
): string | undefined {
  const sealed = sealToken(FORM_STATE_DOMAIN, { approval: load.approval, run: load.run }, keyring, binding);
  return sealed.length <= FORM_STATE_MAX_CHARS ? sealed : undefined;
}

/** Why a posted state was not used (the decision reads instead). */
export type FormStateFailure = SealedTokenFailure | 'invalid' | 'wrong_approval';

/** Opens a posted state: the approval and run its page read, or why not. */
export function openFormState(
  state: string,
  binding: FormStateBinding,
  keyring: Keyring,
): { ok: true; load: PageLoad } | { ok: false; reason: FormStateFailure } {
  const opened = openSealedToken(state, FORM_STATE_DOMAIN, keyring, binding, FORM_STATE_MAX_CHARS);
  if (!opened.ok) return opened;
  const parsed = PageLoadSchema.safeParse(opened.value);
  if (!parsed.success) return { ok: false, reason: 'invalid' };
  const { approval, run } = parsed.data;
  if (approval.approvalId !== binding.approvalId || run.runId !== approval.runId)
    return { ok: false, reason: 'wrong_approval' };
  return { ok: true, load: { approval, run } };
}
