/**
 * The same IAM check on the local stack: an e2e approval flow (API, the synthesized state machine running
 * Turn, RequestApproval, Deliver in process, the approval page over HTTP) with the stack's call recorder
 * on. Each call is tagged with the Lambda function the local shim stood in for; local names are mapped to
 * the ARNs the synthesized stack gives them (the table, the state machine) and the call is simulated
 * against that function's policies. Calls the stack makes for itself (`local`) and the test's own reads
 * (`test`) have no AWS counterpart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandlerName } from '../../infra/constructs/state-names.ts';
import { type AwsCallRecord, withFunctionName } from '../../shared/runtime/aws-call-recorder.ts';
import {
  appendTurn,
  applyWorkflowText,
  awaitingApproval,
  createOwnTable,
  type E2eStack,
  gatedNotesWorkflow,
  openPage,
  postForm,
  removeDir,
  runEnded,
  startE2eStack,
  startRun,
  tempDataDir,
} from '../e2e/support.ts';
import { logicalId } from '../infra/synth.ts';
import { StackPolicies } from './policies.ts';
import { iamRequestsFor } from './requests.ts';
import { decide } from './simulate.ts';
import { synthForIam } from './stack.ts';
import { ACCOUNT } from './template.ts';

let e2e: E2eStack;
let dataDir: string;
let policies: StackPolicies;
let stateMachineArn: string;
const calls: AwsCallRecord[] = [];

/** A local call with the deployed stack's names (the table already has the synthesized table's name). */
function deployed(call: AwsCallRecord, localStateMachineArn: string): AwsCallRecord {
  const local = localStateMachineArn.replace(':stateMachine:', ':execution:');
  const aws = stateMachineArn.replace(':stateMachine:', ':execution:');
  const ids = Object.fromEntries(
    Object.entries(call.ids).map(([path, value]) => [
      path,
      value.replace(localStateMachineArn, stateMachineArn).replace(local, aws),
    ]),
  );
  return { ...call, ids };
}

beforeAll(async () => {
  const table = await createOwnTable();
  const synth = synthForIam();
  const resources = (synth.template.toJSON() as { Resources: Record<string, { Type: string }> }).Resources;
  const tableId = Object.keys(resources).find((id) => resources[id]?.Type === 'AWS::DynamoDB::Table')!;
  policies = new StackPolicies(synth, { [tableId]: table.tableName });
  stateMachineArn = policies.resolved.ref(logicalId(synth.stack.runtime.runStateMachine.stateMachine));
  dataDir = await tempDataDir();
  e2e = await startE2eStack(table, {
    dataDir,
    fixtures: [{ name: 'iam-local', turns: [appendTurn('local line'), { text: 'Recorded.' }] }],
    awsCalls: (call) => calls.push(call),
  });
  // The test's own store reads (helpers peek at approvals) are tagged `test`: no function made them.
  await withFunctionName('test', async () => {
    const workflowId = await applyWorkflowText(e2e, 'iam-local', gatedNotesWorkflow('iam-local'));
    const runId = await startRun(e2e, workflowId);
    const { link } = await awaitingApproval(e2e, runId);
    const form = await openPage(link);
    await postForm(form.action, { t: form.t, nonce: form.nonce, decision: 'approve' });
    expect(await runEnded(e2e, runId)).toMatchObject({ status: 'done' });
  });
}, 60_000);

afterAll(async () => {
  await e2e?.stack.stop();
  await removeDir(dataDir);
});

describe('IAM simulation of the local stack calls', () => {
  it('tags every call with the function the local stack stood in for', () => {
    const callers = new Set(calls.map((call) => call.fn));
    for (const fn of ['api', 'workflow-write', 'turn', 'request-approval', 'approval-http', 'deliver'])
      expect(callers).toContain(fn);
    expect(callers).not.toContain('unknown');
  });

  it('allows each of them with the policies the synthesized stack gives that function', async () => {
    const deployment = {
      region: policies.resolved.region,
      stateMachineArn,
      secretTags: policies.secretTags(),
    };
    const local = e2e.stack.sfn.stateMachineArn;
    const requests = calls
      .filter((call) => call.fn !== 'local' && call.fn !== 'test')
      .flatMap((call) => iamRequestsFor(deployed(call, local), deployment));
    const unique = [...new Map(requests.map((r) => [JSON.stringify(r), r])).values()];
    const denied: string[] = [];
    for (const request of unique) {
      const fn = request.fn as HandlerName;
      const role = policies.functionIdentity(fn).roleArn.split('/').at(-1);
      const decision = await decide({
        principal: `arn:aws:sts::${ACCOUNT}:assumed-role/${role}/${fn}`,
        action: request.action,
        resource: request.resource,
        context: request.context,
        identityPolicies: policies.functionIdentity(fn).policies,
        resourcePolicy: policies.resourcePolicyFor(request.resource),
      });
      if (decision !== 'Allowed') denied.push(`${fn} ${request.action} ${request.resource}: ${decision}`);
    }
    console.log(`[iam] local stack: ${unique.length} distinct recorded calls, ${denied.length} denied`);
    expect(denied).toEqual([]);
  });
});
