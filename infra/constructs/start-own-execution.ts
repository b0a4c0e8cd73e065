/**
 * `StartOwnExecution`: `states:startExecution` of the running state machine itself, addressed as
 * `StateMachineArn.$: $$.StateMachine.Id` (the task never needs the machine's ARN at build time).
 */
import { Stack } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';

type StartExecutionProps = ConstructorParameters<typeof tasks.StepFunctionsStartExecution>[2];
type StateMachineRef = StartExecutionProps['stateMachine'];

/** The running state machine itself, as the task sees it: `StateMachineArn.$: $$.StateMachine.Id`. */
export class OwnStateMachineRef extends Construct implements StateMachineRef {
  public readonly stateMachineRef = { stateMachineArn: sfn.JsonPath.stringAt('$$.StateMachine.Id') };
  public readonly env = { account: Stack.of(this).account, region: Stack.of(this).region };
}

/**
 * `states:startExecution` of the running state machine. The base task would grant `states:StartExecution` on
 * its `stateMachineArn`, here the JSONPath `$$.StateMachine.Id`, which is no ARN; `RunStateMachine` grants
 * it on the real ARN instead.
 */
export class StartOwnExecution extends tasks.StepFunctionsStartExecution {
  protected override readonly taskPolicies: iam.PolicyStatement[] = [];
}
