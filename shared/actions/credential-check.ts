/**
 * The credential check of the model-driven HTTP built-ins (http_request, fetch_url): a request whose URL,
 * headers or body carries a credential value is refused before anything is sent. Credentials are injected
 * by the runtime into the connectors that declare them; a model that puts one into a request of its own is
 * exfiltrating it (prompt injection), whatever it believes.
 */
import type { RunScope } from '../core/actions.ts';
import type { ActionContext, CredentialRef } from '../core/ports.ts';
import { REDACTED } from '../credentials/redactor.ts';
import type { CredentialRefSpec } from '../schemas/credentials.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';

/** The refusal, as the model reads it. */
export const CREDENTIAL_IN_REQUEST =
  'this request contains a credential value; credentials are injected by the runtime, never supplied in a request';

/** What resolving a credential needs: the port and the owner the run acts for. */
export type CredentialContext = Pick<ActionContext, 'secrets'> & { scope: Pick<RunScope, 'owner'> };

/** A credRefs entry as the SecretsPort takes it, on behalf of `owner`. */
export const credentialRefOf = (spec: CredentialRefSpec, owner: string): CredentialRef =>
  spec.field === undefined
    ? { owner, secret: spec.secret }
    : { owner, secret: spec.secret, field: spec.field };

/**
 * Why the request must not be sent, or undefined. The workflow's own credentials are resolved first, so
 * the check holds in a fresh process too (the secrets port only knows values it has resolved); a
 * credential that cannot be loaded fails the check closed. Each part is also checked URL-decoded and, when
 * it is JSON, re-serialised, so a differently escaped value is still found. A part carrying the redaction
 * marker is refused too: a credential was already cut out of what the model proposed. Only the run owner's
 * credentials count: another owner's value in this request is not refused (the refusal would confirm a guess).
 */
export async function credentialProblem(
  ctx: CredentialContext,
  definition: WorkflowDefinition,
  parts: readonly string[],
): Promise<string | undefined> {
  for (const [slot, spec] of Object.entries(definition.credRefs)) {
    try {
      await ctx.secrets.resolve(credentialRefOf(spec, ctx.scope.owner));
    } catch {
      return `the runtime could not load the workflow's credential '${slot}' to check this request against it, so it was not sent`;
    }
  }
  for (const part of parts.flatMap(variants)) {
    if (ctx.secrets.redact(ctx.scope.owner, part) !== part) return CREDENTIAL_IN_REQUEST;
    if (part.includes(REDACTED)) return `${CREDENTIAL_IN_REQUEST} (a redacted credential is in it)`;
  }
  return undefined;
}

function variants(part: string): string[] {
  const out = [part];
  for (const encoded of [part, part.replaceAll('+', ' ')]) {
    try {
      const decoded = decodeURIComponent(encoded);
      if (!out.includes(decoded)) out.push(decoded);
    } catch {
      // not URL-encoded text
    }
  }
  try {
    const json = JSON.stringify(JSON.parse(part));
    if (json !== part) out.push(json);
  } catch {
    // not JSON
  }
  return out;
}
