/**
 * A local stack whose `stop` fails when its Step Functions endpoint refused a request, as AWS would have
 * (shared/local/sfn/README.md, "Request rules"): the runtime may swallow the error (a wait left to time out),
 * and the test would pass on a call that fails on AWS.
 */
import type { LocalStack } from '../../shared/local/stack.ts';

/** Throws naming every refusal the stack's Step Functions endpoint recorded, if any. */
export function assertNoSfnRefusals(stack: Pick<LocalStack, 'sfnRefusals'>): void {
  if (stack.sfnRefusals.length > 0)
    throw new Error(
      `the local Step Functions endpoint refused, as AWS would: ${stack.sfnRefusals
        .map((refusal) => `${refusal.operation} ${refusal.code}: ${refusal.message.slice(0, 300)}`)
        .join(' | ')}`,
    );
}

/** `stack`, its `stop` failing after the stack stopped when a refusal was recorded. */
export function refusalsFailStop(stack: LocalStack): LocalStack {
  return {
    ...stack,
    async stop() {
      await stack.stop();
      assertNoSfnRefusals(stack);
    },
  };
}
