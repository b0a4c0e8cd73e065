/**
 * The tests' local stacks fail their `stop` when the Step Functions endpoint refused a request as AWS would
 * (shared/local/sfn/README.md, "Request rules"), even one the runtime swallowed: here a StopExecution whose
 * `executionArn` is over 256 characters (API_StopExecution.html), its error dropped by the caller.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createOwnTable, removeDir, startE2eStack, tempDataDir } from './support.ts';

let dataDir: string | undefined;

afterAll(async () => {
  if (dataDir) await removeDir(dataDir);
});

describe('The e2e stack and Step Functions refusals', () => {
  it('fails stop, naming the refused request, after a refusal its caller swallowed', async () => {
    // Prepare
    dataDir = await tempDataDir();
    const { stack } = await startE2eStack(await createOwnTable(), { dataDir });
    const tooLong = `${stack.sfn.stateMachineArn.replace(':stateMachine:', ':execution:')}:${'x'.repeat(300)}`;
    await stack.executions.stop(tooLong, 'why').catch(() => undefined);

    // Act
    const stopped = stack.stop();

    // Assess
    await expect(stopped).rejects.toThrow(
      "the local Step Functions endpoint refused, as AWS would: StopExecution ValidationException: 1 validation error detected: Value 'arn:",
    );
    expect(stack.sfnRefusals).toHaveLength(1);
  });
});
