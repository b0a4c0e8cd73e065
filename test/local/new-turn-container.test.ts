/**
 * The local stack's `newTurnContainer` (the cold-container shape of `npm run bench:cost-profile`): a Turn
 * invocation it answers true for runs on a new container, whose caches are empty, so it reads the workflow version
 * again; one it answers false for runs on the stack's one warm container, which holds the version it read before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AwsCallRecord } from '../../shared/runtime/aws-call-recorder.ts';
import {
  applyWorkflowText,
  createOwnTable,
  type E2eStack,
  removeDir,
  runEnded,
  startE2eStack,
  startRun,
  tempDataDir,
} from '../e2e/support.ts';

const NAME = 'cold-turns';
const step = (line: string) => ({
  response: {
    content: [{ type: 'tool_use' as const, name: 'notes_append', input: { name: 'log', line } }],
  },
});
/** Three turns: two tool calls, then the answer. */
const fixture = { name: NAME, turns: [step('one'), step('two'), { text: 'done' }] };
const workflow = `name: ${NAME}
model: { id: claude-sonnet-5-5, maxTokens: 1024 }
prompt: { system: Record each step with notes_append. }
allowedActions: [notes_append]
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1, maxTurns: 5 }
`;

let e2e: E2eStack;
let dataDir: string;
let cold = false;
const calls: AwsCallRecord[] = [];

beforeAll(async () => {
  dataDir = await tempDataDir();
  e2e = await startE2eStack(await createOwnTable(), {
    dataDir,
    fixtures: [fixture],
    awsCalls: (record) => calls.push(record),
    newTurnContainer: () => cold,
  });
});

afterAll(async () => {
  await e2e?.stack.stop();
  await removeDir(dataDir);
});

/** One run to its end; the Turn function's reads of the workflow version (GetItem) in it. */
async function turnGetItems(workflowId: string): Promise<number> {
  const before = calls.length;
  const runId = await startRun(e2e, workflowId);
  expect((await runEnded(e2e, runId)).status).toBe('done');
  // The version is in the owner's partition; the local stack's commit barrier (durable-commits.ts) is read by
  // GetItem too, after each transaction, and is not a request the runtime makes on AWS.
  return calls
    .slice(before)
    .filter(
      (call) => call.fn === 'turn' && call.command === 'GetItem' && call.ids['Key.pk']?.startsWith('OWNER#'),
    ).length;
}

describe('The local stack with newTurnContainer', () => {
  it('runs each turn it is asked to on a new container, which reads the workflow version again', async () => {
    // Prepare: a first run leaves the warm container holding the workflow's version.
    const workflowId = await applyWorkflowText(e2e, NAME, workflow);
    await turnGetItems(workflowId);

    // Act
    const warm = await turnGetItems(workflowId);
    cold = true;
    const coldReads = await turnGetItems(workflowId);
    cold = false;

    // Assess: none on the warm container, one per turn (3) on new ones.
    expect(warm).toBe(0);
    expect(coldReads).toBe(3);
  });
});
