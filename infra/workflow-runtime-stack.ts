/**
 * The deployable stack: one `WorkflowRuntime` and its outputs. Everything of substance is in the construct,
 * so teams can also embed `WorkflowRuntime` in their own stacks.
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { WorkflowRuntime, type WorkflowRuntimeProps } from './constructs/workflow-runtime.ts';

/** Properties of the `WorkflowRuntimeStack`. */
export interface WorkflowRuntimeStackProps extends StackProps {
  /** Properties of the runtime construct. @default - the construct's defaults */
  readonly runtime?: WorkflowRuntimeProps;
}

/** A stack holding one `WorkflowRuntime` (construct id `Runtime`). */
export class WorkflowRuntimeStack extends Stack {
  /** The runtime. */
  public readonly runtime: WorkflowRuntime;

  constructor(scope: Construct, id: string, props: WorkflowRuntimeStackProps = {}) {
    super(scope, id, {
      description: 'LLM workflow runtime (Step Functions, Lambda, DynamoDB, HTTP API)',
      ...props,
    });
    this.runtime = new WorkflowRuntime(this, 'Runtime', props.runtime);
    const runtime = this.runtime;
    const outputs: Record<string, { value: string; description: string }> = {
      ApiUrl: { value: runtime.apiUrl, description: 'Base URL of the HTTP API (/v1/…, /approvals/…)' },
      ApprovalBaseUrl: { value: runtime.approvalBaseUrl, description: 'Base URL of approval links' },
      TableName: {
        value: runtime.table.tableName,
        description: 'DynamoDB table (retained on delete by default)',
      },
      StateMachineArn: {
        value: runtime.runStateMachine.stateMachine.stateMachineArn,
        description: 'Run state machine',
      },
      EventBusName: {
        value: runtime.triggers.eventBus.eventBusName,
        description: 'Bus that services PutEvents to',
      },
      EventBusArn: { value: runtime.triggers.eventBus.eventBusArn, description: 'ARN of the event bus' },
      ScheduleGroupName: {
        value: runtime.triggers.scheduleGroup.scheduleGroupName,
        description: 'EventBridge Scheduler group of workflow schedules',
      },
      ApprovalTopicArn: {
        value: runtime.approvalNotices.topicArn,
        description: 'SNS topic of approval notices',
      },
      OwnerTopicArn: {
        value: runtime.ownerNotices.topicArn,
        description: 'SNS topic of owner notices (failed, denied, expired runs)',
      },
      SigningSecretArn: { value: runtime.signingKey.secretArn, description: 'Approval-link signing keyring' },
      AuditSigningKeyArn: {
        value: runtime.auditSigningKey.keyArn,
        description:
          'KMS key signing audit chain heads: export its public key for wf audit verify (docs/security.md)',
      },
      DashboardName: {
        value: runtime.observability.dashboard.dashboardName,
        description: 'CloudWatch dashboard of the runtime',
      },
    };
    if (runtime.anthropicApiKeySecret !== undefined) {
      outputs.AnthropicApiKeySecretArn = {
        value: runtime.anthropicApiKeySecret.secretArn,
        description: 'Put the Anthropic API key into this secret (docs/deploy.md)',
      };
    }
    for (const [outputId, output] of Object.entries(outputs)) new CfnOutput(this, outputId, output);
  }
}
