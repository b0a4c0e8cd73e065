/**
 * `Triggers`: what starts runs besides the API. A custom EventBridge bus that services `PutEvents` to; an
 * EventBridge Scheduler schedule group; the role Scheduler assumes to invoke the start-run function. The API
 * function creates schedules (in the group) and rules (on the bus, with a name prefix) at run time; this
 * construct grants it exactly that and tells it the names through environment variables.
 */
import { ArnFormat, Names, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { ENV } from './env-names.ts';
import { acknowledgeGrantWildcards } from './nag.ts';
import { TriggerDeadLetters } from './trigger-dead-letters.ts';

/** Properties of `Triggers`. */
export interface TriggersProps {
  /** The function that schedules and rules invoke (functions/start-run.ts). */
  readonly startRunFunction: lambda.IFunction;
  /**
   * Name of the custom event bus. Bus names are unique per account and Region, so a fixed name would collide
   * with a second runtime stack. @default - unique, derived from the stack name and construct path
   */
  readonly eventBusName?: string;
  /** Name of the schedule group (1–64 of A-Z a-z 0-9 - _ .). @default - generated from the construct path */
  readonly scheduleGroupName?: string;
  /** Prefix of the names of the rules the API creates on the bus. @default 'wf-' */
  readonly ruleNamePrefix?: string;
  /** What happens to the schedule group (and its schedules) when it leaves the stack. @default RemovalPolicy.DESTROY */
  readonly removalPolicy?: RemovalPolicy;
}

/** Event bus, schedule group and Scheduler role, with grants for the function that manages them. */
export class Triggers extends Construct {
  /** The custom event bus. */
  public readonly eventBus: events.EventBus;
  /** The schedule group holding the workflows' schedules. */
  public readonly scheduleGroup: scheduler.ScheduleGroup;
  /** The role EventBridge Scheduler assumes to invoke the start-run function. */
  public readonly schedulerRole: iam.Role;
  /** Prefix of the rules managed at run time. */
  public readonly ruleNamePrefix: string;
  /** Where a trigger that could not start a run is kept (trigger-dead-letters.ts). */
  public readonly deadLetters: TriggerDeadLetters;
  private readonly startRunFunction: lambda.IFunction;

  constructor(scope: Construct, id: string, props: TriggersProps) {
    super(scope, id);
    // Bus names: 1–256 of [/.\-_A-Za-z0-9], not 'default', unique per account and Region; a custom bus name
    // must not contain '/'. https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_CreateEventBus.html
    const busName = props.eventBusName ?? Names.uniqueResourceName(this, { maxLength: 256, separator: '-' });
    if (!/^[A-Za-z0-9._-]{1,256}$/.test(busName) || busName === 'default') {
      throw new Error(
        `Triggers '${id}': eventBusName '${busName}' is not a custom bus name; use 1–256 of A-Z a-z 0-9 . _ - (not 'default').`,
      );
    }
    // Rule names have at most 64 characters
    // (https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutRule.html); the runtime names a rule
    // prefix + workflow id, or prefix + hex digest when that is too long, which needs a prefix of at most 32.
    this.ruleNamePrefix = props.ruleNamePrefix ?? 'wf-';
    if (!/^[A-Za-z0-9._-]{1,32}$/.test(this.ruleNamePrefix)) {
      throw new Error(
        `Triggers '${id}': ruleNamePrefix '${this.ruleNamePrefix}' is invalid; use 1–32 of A-Z a-z 0-9 . _ - (rule names allow no more).`,
      );
    }
    // https://docs.aws.amazon.com/scheduler/latest/APIReference/API_CreateScheduleGroup.html: 1–64 of [0-9a-zA-Z-_.]
    const groupName = props.scheduleGroupName;
    if (
      groupName !== undefined &&
      !Token.isUnresolved(groupName) &&
      !/^[A-Za-z0-9._-]{1,64}$/.test(groupName)
    ) {
      throw new Error(
        `Triggers '${id}': scheduleGroupName '${groupName}' is invalid; use 1–64 of A-Z a-z 0-9 . _ -.`,
      );
    }
    this.startRunFunction = props.startRunFunction;
    const stack = Stack.of(this);

    this.eventBus = new events.EventBus(this, 'EventBus', {
      eventBusName: busName,
      description: 'Events that start workflow runs (rules are created per workflow by the runtime API)',
    });
    this.restrictPutEventsToAccount();
    this.scheduleGroup = new scheduler.ScheduleGroup(this, 'ScheduleGroup', {
      removalPolicy: props.removalPolicy ?? RemovalPolicy.DESTROY,
      ...(props.scheduleGroupName === undefined ? {} : { scheduleGroupName: props.scheduleGroupName }),
    });

    // Confused-deputy guard: only Scheduler acting for this account, for a schedule in this group. Scheduler
    // presents the schedule GROUP's ARN as aws:SourceArn ("must be a schedule group", not a schedule or a
    // schedule name prefix): https://docs.aws.amazon.com/scheduler/latest/UserGuide/cross-service-confused-deputy-prevention.html
    // A `schedule/<group>/*` pattern never matches, and no schedule would ever fire (test/iam/trust.test.ts).
    this.schedulerRole = new iam.Role(this, 'SchedulerRole', {
      description: 'Assumed by EventBridge Scheduler to invoke the start-run function',
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnEquals: { 'aws:SourceArn': this.scheduleGroup.scheduleGroupArn },
        },
      }),
    });
    props.startRunFunction.grantInvokeLatestVersion(this.schedulerRole);

    // Rules are created at run time, so the function's resource policy admits every rule with the prefix.
    props.startRunFunction.addPermission('InvokeFromWorkflowRules', {
      principal: new iam.ServicePrincipal('events.amazonaws.com'),
      action: 'lambda:InvokeFunction',
      sourceArn: this.ruleArn(`${this.ruleNamePrefix}*`),
      sourceAccount: stack.account,
    });
    this.deadLetters = new TriggerDeadLetters(this, 'DeadLetters', {
      startRunFunction: props.startRunFunction,
      schedulerRole: this.schedulerRole,
      ruleArnPattern: this.ruleArn(`${this.ruleNamePrefix}*`),
    });
  }

  /**
   * The bus's resource policy: only principals of this account may put events, each as its IAM policies allow
   * (the api function by its grant; services by `grantPutEvents`). Events that start runs carry the owner
   * stamp `detail.wf-owner`; the API writes it from the caller's identity, and a direct PutEvents by an
   * account principal is trusted to write it truthfully, since no IAM condition key can see into `detail`
   * (`events:source` and `events:detail-type` are the only event-content keys:
   * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-use-conditions.html). The explicit deny keeps any
   * later grant (PutPermission, another statement) from admitting other accounts.
   * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-event-bus-perms.html
   */
  private restrictPutEventsToAccount(): void {
    const account = Stack.of(this).account;
    this.eventBus.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'OnlyThisAccountPutsEvents',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['events:PutEvents'],
        resources: [this.eventBus.eventBusArn],
        conditions: { StringNotEquals: { 'aws:PrincipalAccount': account } },
      }),
    );
    this.eventBus.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'ThisAccountPutsEvents',
        effect: iam.Effect.ALLOW,
        principals: [new iam.AccountRootPrincipal()],
        actions: ['events:PutEvents'],
        resources: [this.eventBus.eventBusArn],
      }),
    );
  }

  /** ARN of a schedule in the group (`*` for all). */
  public scheduleArn(scheduleName: string): string {
    return Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.scheduleGroup.scheduleGroupName}/${scheduleName}`,
    });
  }

  /** ARN of a rule on the bus (`<prefix>*` for all managed rules). */
  public ruleArn(ruleName: string): string {
    return Stack.of(this).formatArn({
      service: 'events',
      resource: 'rule',
      resourceName: `${this.eventBus.eventBusName}/${ruleName}`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  }

  /**
   * Grants managing the workflows' schedules: create/update/delete schedules in the group (the trigger sync
   * reads none), and passing the Scheduler role (only that role) to Scheduler.
   */
  public grantManageSchedules(grantee: iam.IGrantable): iam.Grant {
    const grant = this.scheduleGroup
      .grantWriteSchedules(grantee)
      .combine(this.scheduleGroup.grantDeleteSchedules(grantee))
      .combine(this.schedulerRole.grantPassRole(grantee.grantPrincipal));
    acknowledgeGrantWildcards(
      grantee,
      grant,
      'Schedules are created per workflow at run time; access is scoped to schedules in this one group.',
    );
    return grant;
  }

  /**
   * Grants managing the workflows' event rules: put/delete rules named `<prefix>*` on the bus, and
   * put/remove their targets, where every target put must be the start-run function (`events:TargetArn`).
   */
  public grantManageRules(grantee: iam.IGrantable): iam.Grant {
    const rules = this.ruleArn(`${this.ruleNamePrefix}*`);
    const grant = iam.Grant.addToPrincipal({
      grantee,
      actions: ['events:PutRule', 'events:DeleteRule', 'events:RemoveTargets'],
      resourceArns: [rules],
    }).combine(
      iam.Grant.addToPrincipal({
        grantee,
        actions: ['events:PutTargets'],
        resourceArns: [rules],
        // events:TargetArn is multivalued (one value per target): it needs a set operator, and ForAllValues
        // is true on an empty set, hence the Null check.
        // https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-single-vs-multi-valued-context-keys.html
        // AWS does not say whether a target's DeadLetterConfig ARN is among the key's values; the dead-letter
        // queue is listed too, so a rule sync is not refused either way (a rule may only reach the queue or
        // start-run, both this stack's).
        conditions: {
          'ForAllValues:ArnEquals': {
            'events:TargetArn': [this.startRunFunction.functionArn, this.deadLetters.queue.queueArn],
          },
          Null: { 'events:TargetArn': 'false' },
        },
      }),
    );
    acknowledgeGrantWildcards(
      grantee,
      grant,
      'Event rules are created per workflow at run time; access is scoped to rules with the runtime prefix on ' +
        'the runtime bus, and targets are restricted to the start-run function.',
    );
    return grant;
  }

  /**
   * Grants `events:PutEvents` on the bus: for the api function (`POST /v1/events`) and for services that emit
   * events directly — which must then stamp `detail.wf-owner` with the owner whose workflows may start.
   */
  public grantPutEvents(grantee: iam.IGrantable): iam.Grant {
    return this.eventBus.grantPutEventsTo(grantee);
  }

  /** The environment variables the managing function needs (names in env-names.ts). */
  public environment(): Record<string, string> {
    return {
      [ENV.eventBusName]: this.eventBus.eventBusName,
      [ENV.eventRulePrefix]: this.ruleNamePrefix,
      [ENV.scheduleGroupName]: this.scheduleGroup.scheduleGroupName,
      [ENV.schedulerRoleArn]: this.schedulerRole.roleArn,
      [ENV.startRunFunctionArn]: this.startRunFunction.functionArn,
      [ENV.triggerDeadLetterQueueArn]: this.deadLetters.queue.queueArn,
    };
  }
}
