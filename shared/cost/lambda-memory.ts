/**
 * The Lambda memory `wf cost` prices: read from the infra props the CDK app deploys with
 * (infra/constructs/workflow-runtime-props.ts and runtime-function.ts), so the estimate follows the stack.
 * Imported on use: the CDK library is large, and no other command needs it.
 */
import type { LambdaMemory } from './run-cost.ts';

export async function configuredMemory(): Promise<LambdaMemory> {
  const { FUNCTION_SETTINGS } = await import('../../infra/constructs/workflow-runtime-props.ts');
  const { RUNTIME_FUNCTION_DEFAULTS } = await import('../../infra/constructs/runtime-function.ts');
  return {
    turnMb: FUNCTION_SETTINGS.turn.memorySize ?? RUNTIME_FUNCTION_DEFAULTS.memorySize,
    otherMb: RUNTIME_FUNCTION_DEFAULTS.memorySize,
  };
}
