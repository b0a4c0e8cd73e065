/** Errors of the turn engine. Names are stable: Step Functions Catch/Retry and handlers match on them. */

export class RunNotFoundError extends Error {
  constructor(runId: string) {
    super(`run ${runId} does not exist`);
    this.name = 'RunNotFoundError';
  }
}

/** The state machine asked for a turn the run has not reached: its pointer and the store disagree. */
export class TurnFenceError extends Error {
  constructor(runId: string, expected: number, stored: number) {
    super(`run ${runId}: the state machine asked for turn ${expected} but the run is at turn ${stored}`);
    this.name = 'TurnFenceError';
  }
}

/** No price is known for a model, so no budget can be checked: fail closed. */
export class UnknownModelPriceError extends Error {
  constructor(model: string) {
    super(
      `no price is known for model '${model}'; add it to the price table (docs/budgets.md) so budgets can be enforced`,
    );
    this.name = 'UnknownModelPriceError';
  }
}

/** The workflow version a run is bound to is missing. */
export class WorkflowVersionMissingError extends Error {
  constructor(workflowId: string, version: number) {
    super(`workflow ${workflowId} version ${version} does not exist`);
    this.name = 'WorkflowVersionMissingError';
  }
}

/**
 * Whether a secrets port's refusal is permanent: the reference cannot be read however often it is retried (no
 * such secret, access denied, a name outside the owner's namespace, a field the value does not have). The port
 * says so with `permanent: true` on its error (SecretsPort); anything else (throttling, a 5xx, the network, the
 * per-container owner cap) may pass.
 */
export function isPermanentCredentialFailure(cause: unknown): boolean {
  return (cause as { permanent?: unknown } | null)?.permanent === true;
}

const causeText = (cause: unknown) => (cause as Error)?.message ?? String(cause);

/**
 * A credential of the workflow could not be loaded for the run's owner (a refused or failed read), so text that
 * may carry it (the model's answer, a delivery's response) could not be redacted of it. Fail closed: the call
 * is not made, or its answer is not kept, and the task is retried (the state machines' engine retrier): the
 * per-container redaction cap frees a place within its hold, a throttled read passes. The message names the
 * slot and the reference, never a value. A permanent refusal is CredentialRefusedError instead.
 */
export class CredentialUnavailableError extends Error {
  readonly slot: string;
  constructor(slot: string, cause: unknown) {
    super(
      `the workflow's credential '${slot}' could not be loaded, so text that may carry it cannot be redacted: ${causeText(cause)}`,
      { cause },
    );
    this.name = 'CredentialUnavailableError';
    this.slot = slot;
  }
}

/**
 * A credential of the workflow can never be read as it is named (isPermanentCredentialFailure): final, never
 * retried (no retrier lists it), the run fails naming the slot and the reference, never a value. Fixing it
 * (creating or tagging the secret, correcting the name) takes a new run.
 */
export class CredentialRefusedError extends Error {
  readonly slot: string;
  constructor(slot: string, cause: unknown) {
    super(
      `the workflow's credential '${slot}' cannot be read (retrying will not help): ${causeText(cause)}`,
      { cause },
    );
    this.name = 'CredentialRefusedError';
    this.slot = slot;
  }
}

/** The error for a credential slot that could not be read: final when the port says so, retryable otherwise. */
export function credentialFailure(
  slot: string,
  cause: unknown,
): CredentialUnavailableError | CredentialRefusedError {
  return isPermanentCredentialFailure(cause)
    ? new CredentialRefusedError(slot, cause)
    : new CredentialUnavailableError(slot, cause);
}
