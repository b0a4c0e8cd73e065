/**
 * Running one action so that its result can be redacted. The secrets port redacts only the values it has
 * resolved (per owner), and a connector resolves only its own slot, yet its answer may carry any of the
 * workflow's credentials (an echo, an error page). In a fresh container — a resume-from-approval turn runs
 * the approved call before any model call, a graph's service step never calls the model — the other values
 * would be unknown and stored as they are. So every credential of the run's workflow is resolved first, for
 * the run's owner; when one cannot be read the call is not made (fail closed: a result that cannot be
 * redacted is never produced, so it is never stored).
 */
import type { CredentialRefSpec } from '../schemas/credentials.ts';
import type { CredentialRef, SecretsPort, ToolOutcome } from './ports.ts';
import { capToolResult } from './transcript-limits.ts';
import { thrownOutcome, unknownOutcome } from './uncertain.ts';

/** What the redaction needs: the workflow's credentials, the port, the run's owner. */
export type RedactionScope = {
  credRefs: Record<string, CredentialRefSpec>;
  secrets: SecretsPort;
  owner: string;
};

const refOf = (spec: CredentialRefSpec, owner: string): CredentialRef =>
  spec.field === undefined
    ? { owner, secret: spec.secret }
    : { owner, secret: spec.secret, field: spec.field };

/** A credential that could not be read: its slot, and why (a CredentialError names the reference, never a value). */
export type UnreadableCredential = { slot: string; cause: unknown };

/** Resolves every credential of the workflow for the owner; the first slot that could not be read, if any. */
export async function unreadableCredential(scope: RedactionScope): Promise<UnreadableCredential | undefined> {
  const failed = await Promise.all(
    Object.entries(scope.credRefs).map(async ([slot, spec]) => {
      try {
        await scope.secrets.resolve(refOf(spec, scope.owner));
        return undefined;
      } catch (cause) {
        return { slot, cause };
      }
    }),
  );
  return failed.find((each) => each !== undefined);
}

/**
 * The call's outcome, redacted of every credential of the workflow and capped. `rerun` marks a repeat of a
 * call an earlier invocation may have sent: not repeating it then leaves its outcome unknown.
 */
export async function runRedacted(
  scope: RedactionScope,
  rerun: boolean,
  call: () => Promise<ToolOutcome>,
): Promise<ToolOutcome> {
  const unreadable = await unreadableCredential(scope);
  let outcome: ToolOutcome;
  if (unreadable !== undefined) {
    const why = `the runtime could not load the workflow's credential '${unreadable.slot}', which it needs to redact this call's result`;
    outcome = rerun
      ? unknownOutcome(
          `this call was dispatched before the runtime stopped; ${why}, so it was not sent again`,
        )
      : { content: `Not sent: ${why}, so the call was not made.`, isError: true };
  } else {
    try {
      outcome = await call();
    } catch (error) {
      outcome = thrownOutcome(error);
    }
  }
  // Cut by UTF-8 bytes, the unit DynamoDB counts: see transcript-limits.ts. The unknown marker is kept. Well-formed:
  // a lone surrogate an action passed on (a JSON escape in a remote's answer) becomes U+FFFD (byte-caps.ts).
  return { ...outcome, content: capToolResult(scope.secrets.redact(scope.owner, outcome.content)) };
}
