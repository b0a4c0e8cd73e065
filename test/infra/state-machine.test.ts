import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { aslProblems } from '../../infra/asl-rules.ts';
import {
  ENGINE_RETRYABLE_ERRORS,
  HANDLER_BY_STATE,
  LAMBDA_CRASH_ERRORS,
  LAMBDA_SERVICE_ERRORS,
  LAMBDA_THROTTLE_ERRORS,
  STATE_NAMES,
  VENDED_LOGS_PREFIX,
} from '../../infra/constructs/run-state-machine.ts';
import type { HandlerName } from '../../infra/constructs/state-names.ts';
import { WorkflowRuntimeStack } from '../../infra/workflow-runtime-stack.ts';
import { defaultRuntime, fastApp, flatTemplate, logicalId, type SynthesizedRuntime } from './synth.ts';

type State = Record<string, unknown> & { Type: string };

let synthesized: SynthesizedRuntime;
let flat: Template;
let states: Record<string, State>;
const fnArn = (handler: HandlerName) =>
  `\${${logicalId(synthesized.stack.runtime.functions[handler].function)}.Arn}`;
const definitionLike = (pattern: Record<string, unknown>) => ({
  DefinitionString: Match.serializedJson(Match.objectLike(pattern)),
});

beforeAll(() => {
  synthesized = defaultRuntime();
  flat = flatTemplate(synthesized.template);
  const machines = flat.findResources('AWS::StepFunctions::StateMachine');
  const machine = machines[logicalId(synthesized.stack.runtime.runStateMachine.stateMachine)];
  states = JSON.parse(machine?.Properties.DefinitionString as string).States;
});

describe('RunStateMachine', () => {
  it('is one Standard state machine with tracing and ERROR logging without execution data', () => {
    // Three in the stack: this one, the graph machine and the external machine (their own tests).
    synthesized.template.resourceCountIs('AWS::StepFunctions::StateMachine', 3);
    synthesized.template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: Match.objectLike({ Level: 'ERROR', IncludeExecutionData: false }),
    });
  });

  it('has exactly the states of the contract', () => {
    expect(Object.keys(states).sort()).toEqual(Object.values(STATE_NAMES).sort());
  });

  it('starts at Turn, which passes the run pointer and its attempt (context object) and replaces the state with its result', () => {
    flat.hasResourceProperties(
      'AWS::StepFunctions::StateMachine',
      definitionLike({
        StartAt: 'Turn',
        States: Match.objectLike({
          Turn: Match.objectLike({
            Type: 'Task',
            Resource: fnArn('turn'),
            Parameters: Match.exact({
              'runId.$': '$.runId',
              'turn.$': '$.turn',
              'segmentStartTurn.$': '$.segmentStartTurn',
              // Which attempt of the Turn state: the turn spends a reservation made ahead only on the first
              // (shared/core/attempt.ts). Context paths as AWS documents them:
              // https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html
              attempt: {
                'retryCount.$': '$$.State.RetryCount',
                'redriveCount.$': '$$.Execution.RedriveCount',
                'executionId.$': '$$.Execution.Id',
              },
              // The execution's input as started, for a first execution's head hint (shared/runs/start-run.ts):
              // the whole input, present in every execution, where a path to a field would fail one without it.
              'execution.$': '$$.Execution.Input',
              // The state the Turn state is entered with, whole (the previous Turn's outcome, or the execution's
              // input), for the `readHint` a `continue` carries: a path to the field would fail a state without it.
              'state.$': '$',
            }),
            Next: 'Route',
          }),
        }),
      }),
    );
    expect(states.Turn).not.toHaveProperty('ResultPath');
  });

  it.each([
    ['continue', 'Turn'],
    ['done', 'Deliver'],
    ['failed', 'MarkFailed'],
    ['continue_as_new', 'ContinueAsNew'],
  ])('routes next=%s to %s', (next, target) => {
    flat.hasResourceProperties(
      'AWS::StepFunctions::StateMachine',
      definitionLike({
        States: Match.objectLike({
          Route: Match.objectLike({
            Type: 'Choice',
            Choices: Match.arrayWith([{ Variable: '$.next', StringEquals: next, Next: target }]),
          }),
        }),
      }),
    );
  });

  it('routes await_approval with a timeout to RequestApproval, and a missing next or anything else to MarkFailed', () => {
    flat.hasResourceProperties(
      'AWS::StepFunctions::StateMachine',
      definitionLike({
        States: Match.objectLike({
          Route: Match.objectLike({
            Choices: Match.arrayWith([
              { Not: { Variable: '$.next', IsPresent: true }, Next: 'MarkFailed' },
              {
                And: [
                  { Variable: '$.next', StringEquals: 'await_approval' },
                  { Variable: '$.approvalTimeoutSeconds', IsPresent: true },
                  { Variable: '$.approvalTimeoutSeconds', NumericGreaterThanEquals: 1 },
                ],
                Next: 'RequestApproval',
              },
            ]),
            Default: 'MarkFailed',
          }),
        }),
      }),
    );
    const choices = states.Route?.Choices as Array<Record<string, unknown>>;
    expect(choices[0]).toEqual({ Not: { Variable: '$.next', IsPresent: true }, Next: 'MarkFailed' });
  });

  it('waits on RequestApproval for the task token, timing out by $.approvalTimeoutSeconds into Expire', () => {
    flat.hasResourceProperties(
      'AWS::StepFunctions::StateMachine',
      definitionLike({
        States: Match.objectLike({
          RequestApproval: Match.objectLike({
            Type: 'Task',
            Resource: Match.stringLikeRegexp(':states:::lambda:invoke\\.waitForTaskToken$'),
            Parameters: Match.exact({
              FunctionName: fnArn('request-approval'),
              Payload: {
                'runId.$': '$.runId',
                'turn.$': '$.turn',
                'approvalTimeoutSeconds.$': '$.approvalTimeoutSeconds',
                'taskToken.$': '$$.Task.Token',
                // Which attempt of the wait (https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html):
                // a late invocation of a retried attempt never replaces a later one's token (request-record.ts).
                wait: {
                  'retryCount.$': '$$.State.RetryCount',
                  'redriveCount.$': '$$.Execution.RedriveCount',
                  'startTime.$': '$$.Execution.StartTime',
                },
                'turnOutcome.$': '$',
              },
            }),
            TimeoutSecondsPath: '$.approvalTimeoutSeconds',
            Next: 'Turn',
          }),
          Expire: Match.objectLike({ Type: 'Task', Resource: fnArn('expire'), Next: 'Turn' }),
        }),
      }),
    );
    // CDK matchers cannot express JSON null; these fields are asserted on the parsed definition.
    expect(states.RequestApproval?.ResultPath).toBeNull();
    expect(states.Expire?.ResultPath).toBeNull();
    expect(states.RequestApproval?.Catch).toEqual([
      { ErrorEquals: ['States.Timeout'], ResultPath: null, Next: 'Expire' },
      { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'MarkFailed' },
    ]);
  });

  it('ends with Deliver itself (End, no Succeed state after it) and in Failed after MarkFailed', () => {
    flat.hasResourceProperties(
      'AWS::StepFunctions::StateMachine',
      definitionLike({
        States: Match.objectLike({
          Deliver: Match.objectLike({ Resource: fnArn('deliver'), End: true }),
          MarkFailed: Match.objectLike({ Resource: fnArn('mark-failed'), Next: 'Failed' }),
          Failed: Match.objectLike({ Type: 'Fail' }),
        }),
      }),
    );
    expect(states.Deliver?.ResultPath).toBeNull();
    expect(states.Deliver).not.toHaveProperty('Next');
  });

  it('gives MarkFailed the whole state, so runId and a caught error reach it on every path', () => {
    expect(states.MarkFailed).not.toHaveProperty('Parameters');
    expect(states.MarkFailed).not.toHaveProperty('InputPath');
    expect(states.MarkFailed).not.toHaveProperty('Catch');
  });

  it('continues as new in an execution of the same state machine with segmentStartTurn = turn', () => {
    flat.hasResourceProperties(
      'AWS::StepFunctions::StateMachine',
      definitionLike({
        States: Match.objectLike({
          ContinueAsNew: Match.objectLike({
            Type: 'Task',
            Resource: Match.stringLikeRegexp(':states:::states:startExecution$'),
            Parameters: Match.exact({
              'StateMachineArn.$': '$$.StateMachine.Id',
              // Deterministic per continuing execution (execution-ended.test.ts checks the name's rules).
              'Name.$': "States.Format('{}-c{}-{}', $.runId, $.turn, States.Hash($$.Execution.Name, 'MD5'))",
              Input: {
                'runId.$': '$.runId',
                'turn.$': '$.turn',
                'segmentStartTurn.$': '$.turn',
                'AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID.$': '$$.Execution.Id',
              },
            }),
            End: true,
          }),
        }),
      }),
    );
    expect(states.ContinueAsNew).not.toHaveProperty('Next');
  });

  it.each(Object.keys(HANDLER_BY_STATE))(
    'retries %s on Lambda service errors, throttles, engine errors and crashes only, bounded, with backoff and jitter',
    (name) => {
      const retry = states[name]?.Retry as Array<Record<string, unknown>>;
      const crashes =
        name === 'RequestApproval'
          ? LAMBDA_CRASH_ERRORS.filter((error) => error !== 'States.Timeout')
          : [...LAMBDA_CRASH_ERRORS];
      expect(retry.map((each) => each.ErrorEquals)).toEqual([
        [...LAMBDA_SERVICE_ERRORS],
        [...LAMBDA_THROTTLE_ERRORS],
        [...ENGINE_RETRYABLE_ERRORS],
        crashes,
      ]);
      for (const each of retry) {
        expect(each).toMatchObject({ JitterStrategy: 'FULL', BackoffRate: 2 });
        expect(each.MaxAttempts).toBeGreaterThan(1);
        // A throttled invocation never ran: its retrier waits long (execution-ended.test.ts sums its window).
        expect(each.MaxAttempts).toBeLessThanOrEqual(
          (each.ErrorEquals as string[]).includes('Lambda.TooManyRequestsException') ? 20 : 6,
        );
        expect(each.MaxDelaySeconds).toBeGreaterThanOrEqual(each.IntervalSeconds as number);
      }
    },
  );

  it('retries a Turn that crashed, was killed by its timeout or outlived its task timeout (issue #10)', () => {
    const retry = states.Turn?.Retry as Array<{ ErrorEquals: string[]; MaxAttempts: number }>;
    for (const error of ['Lambda.Unknown', 'Sandbox.Timedout', 'States.Timeout']) {
      const retrier = retry.find((each) => each.ErrorEquals.includes(error));
      expect(retrier?.MaxAttempts, error).toBe(2);
    }
  });

  it('never retries the approval wait’s own timeout: States.Timeout on RequestApproval goes to Expire', () => {
    const retry = states.RequestApproval?.Retry as Array<{ ErrorEquals: string[] }>;
    expect(retry.flatMap((each) => each.ErrorEquals)).not.toContain('States.Timeout');
    expect(retry.flatMap((each) => each.ErrorEquals)).toContain('Lambda.Unknown');
  });

  it('breaks no Retry/Catch rule of the States Language or of AWS (offline ASL check)', () => {
    const machines = flat.findResources('AWS::StepFunctions::StateMachine');
    const machine = machines[logicalId(synthesized.stack.runtime.runStateMachine.stateMachine)];
    expect(aslProblems(JSON.parse(machine?.Properties.DefinitionString as string))).toEqual([]);
  });

  it('retries nothing else: no other state has a Retry (but ContinueAsNew, whose start is idempotent)', () => {
    const retrying = Object.entries(states)
      .filter(([, state]) => 'Retry' in state)
      .map(([name]) => name);
    expect(retrying.sort()).toEqual([...Object.keys(HANDLER_BY_STATE), 'ContinueAsNew'].sort());
  });

  it('catches every error of every Task state except MarkFailed into MarkFailed with ResultPath $.error', () => {
    const tasks = Object.entries(states).filter(
      ([name, state]) => state.Type === 'Task' && name !== 'MarkFailed',
    );
    expect(tasks.map(([name]) => name).sort()).toEqual([
      'ContinueAsNew',
      'Deliver',
      'Expire',
      'RequestApproval',
      'Turn',
    ]);
    for (const [, state] of tasks) {
      expect(state.Catch).toContainEqual({
        ErrorEquals: ['States.ALL'],
        ResultPath: '$.error',
        Next: 'MarkFailed',
      });
      expect((state.Catch as unknown[]).at(-1)).toEqual({
        ErrorEquals: ['States.ALL'],
        ResultPath: '$.error',
        Next: 'MarkFailed',
      });
    }
  });

  it('lets the state machine start executions of itself, and names no JSONPath as an IAM resource', () => {
    const machineId = logicalId(synthesized.stack.runtime.runStateMachine.stateMachine);
    const roleId = logicalId(synthesized.stack.runtime.runStateMachine.stateMachine.role);
    synthesized.template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [{ Action: 'states:StartExecution', Effect: 'Allow', Resource: { Ref: machineId } }],
      },
      Roles: [{ Ref: roleId }],
    });
    expect(JSON.stringify(synthesized.template.findResources('AWS::IAM::Policy'))).not.toContain('$$.');
  });

  it('lets the state machine invoke exactly its five task functions', () => {
    const roleId = logicalId(synthesized.stack.runtime.runStateMachine.stateMachine.role);
    const policies = Object.values(
      flat.findResources('AWS::IAM::Policy', { Properties: { Roles: [`\${${roleId}}`] } }),
    );
    const invoked = policies
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Array<Record<string, unknown>>)
      .filter((statement) => statement.Action === 'lambda:InvokeFunction')
      .flatMap((statement) => statement.Resource as string[])
      .filter((arn) => !arn.endsWith(':*'));
    expect(invoked.sort()).toEqual(Object.values(HANDLER_BY_STATE).map(fnArn).sort());
  });
});

describe('RunStateMachine execution log group', () => {
  /** The state machine's log group name: `Fn::Join` parts, as synthesized. */
  function logGroupNameParts(stack: WorkflowRuntimeStack): unknown[] {
    const template = Template.fromStack(stack);
    const id = logicalId(stack.runtime.runStateMachine.logGroup);
    const group = template.findResources('AWS::Logs::LogGroup')[id];
    const machine = Object.values(template.findResources('AWS::StepFunctions::StateMachine'))[0];
    // The state machine logs to exactly this group.
    expect(JSON.stringify(machine?.Properties.LoggingConfiguration)).toContain(`"${id}"`);
    const join = group?.Properties.LogGroupName?.['Fn::Join'] as [string, unknown[]];
    expect(join?.[0]).toBe('');
    return join[1];
  }

  const stackUuid = { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] };

  it('lives under /aws/vendedlogs/states/ (CloudWatch Logs resource policy size limit)', () => {
    const [name, uuid] = logGroupNameParts(defaultRuntime().stack);
    expect(VENDED_LOGS_PREFIX).toBe('/aws/vendedlogs/states/');
    // CloudWatch Logs allows [.-_/#A-Za-z0-9] in log group names; the stack name comes first.
    expect(name).toMatch(/^\/aws\/vendedlogs\/states\/WfTest-[A-Za-z0-9_-]+-$/);
    expect(uuid).toEqual(stackUuid);
  });

  it('does not collide between two stacks in one account, nor with a group a deleted stack retained', () => {
    // Two stacks of one app: both exist before the first synthesis.
    const app = fastApp();
    const stacks = [new WorkflowRuntimeStack(app, 'WfTeamA'), new WorkflowRuntimeStack(app, 'WfTeamB')];
    const [first = [], second = []] = stacks.map(logGroupNameParts);
    expect(first[0]).not.toBe(second[0]);
    // The stack's own UUID (the last segment of AWS::StackId) ends each name: a stack deleted and created
    // again under the same name gets a new one.
    expect([first.length, second.length, first[1], second[1]]).toEqual([2, 2, stackUuid, stackUuid]);
  });
});
