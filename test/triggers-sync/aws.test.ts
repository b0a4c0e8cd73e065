import { describe, expect, it } from 'vitest';
import type { Trigger } from '../../shared/schemas/trigger.ts';
import { matchesEventPattern } from '../../shared/triggers/index.ts';
import {
  type AwsTriggerSyncClients,
  awsTriggerSync,
  awsTriggerSyncConfigFromEnv,
  TriggerSyncConfigError,
  TriggerSyncError,
  type TriggerSyncRequest,
} from '../../shared/triggers-sync/index.ts';

const config = {
  scheduleGroupName: 'wf-runtime-schedules',
  schedulerRoleArn: 'arn:aws:iam::123456789012:role/wf-scheduler',
  eventBusName: 'wf-events',
  ruleNamePrefix: 'wf-',
  startRunFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:wf-start-run',
  deadLetterQueueArn: 'arn:aws:sqs:eu-west-1:123456789012:wf-trigger-dead-letters',
};
const scheduleTrigger: Trigger = {
  type: 'schedule',
  expression: 'cron(0 9 ? * MON-FRI *)',
  timezone: 'Europe/Berlin',
};
const eventTrigger: Trigger = {
  type: 'event',
  pattern: { source: ['com.example.orders'], detail: { total: [{ numeric: ['>', 100] }] } },
};
const request = (overrides: Partial<TriggerSyncRequest> = {}): TriggerSyncRequest => ({
  owner: '123456789012:role:Builder',
  workflowId: 'wf_abc123def456',
  name: 'nightly-report',
  enabled: true,
  deleted: false,
  trigger: scheduleTrigger,
  ...overrides,
});

type Sent = { command: string; input: unknown };
/** A recording port: every command the adapter sends, with scripted failures by command name. */
function recording(failures: Record<string, string> = {}, answers: Record<string, unknown> = {}) {
  const sent: Sent[] = [];
  const send = async (command: { constructor: { name: string }; input: unknown }) => {
    const name = command.constructor.name;
    sent.push({ command: name, input: command.input });
    const failure = failures[name];
    if (failure) throw Object.assign(new Error(failure), { name: failure });
    return answers[name] ?? {};
  };
  const clients: AwsTriggerSyncClients = { scheduler: { send }, events: { send } };
  return { sent, clients };
}

const expectedSchedule = (state: 'ENABLED' | 'DISABLED') => ({
  Name: 'wf-wf_abc123def456',
  GroupName: 'wf-runtime-schedules',
  Description: 'Workflow nightly-report (wf_abc123def456) of 123456789012:role:Builder',
  ScheduleExpression: 'cron(0 9 ? * MON-FRI *)',
  ScheduleExpressionTimezone: 'Europe/Berlin',
  FlexibleTimeWindow: { Mode: 'OFF' },
  State: state,
  Target: {
    Arn: config.startRunFunctionArn,
    RoleArn: config.schedulerRoleArn,
    DeadLetterConfig: { Arn: config.deadLetterQueueArn },
    Input:
      '{"owner":"123456789012:role:Builder","workflowId":"wf_abc123def456","scheduledTime":"<aws.scheduler.scheduled-time>"}',
  },
});
const removeRule = [
  {
    command: 'RemoveTargetsCommand',
    input: { Rule: 'wf-wf_abc123def456', EventBusName: 'wf-events', Ids: ['start-run'] },
  },
  { command: 'DeleteRuleCommand', input: { Name: 'wf-wf_abc123def456', EventBusName: 'wf-events' } },
];
const deleteSchedule = {
  command: 'DeleteScheduleCommand',
  input: { Name: 'wf-wf_abc123def456', GroupName: 'wf-runtime-schedules' },
};

describe('awsTriggerSync', () => {
  it('creates the schedule of a schedule-triggered workflow and removes any rule it had', async () => {
    const { sent, clients } = recording({ RemoveTargetsCommand: 'ResourceNotFoundException' });
    await awsTriggerSync(config, clients).sync(request());
    expect(sent).toEqual([
      { command: 'CreateScheduleCommand', input: expectedSchedule('ENABLED') },
      ...removeRule,
    ]);
  });

  it('updates the schedule with the same full input when it already exists, DISABLED for a disabled workflow', async () => {
    const { sent, clients } = recording({ CreateScheduleCommand: 'ConflictException' });
    await awsTriggerSync(config, clients).sync(request({ enabled: false }));
    expect(sent.slice(0, 2)).toEqual([
      { command: 'CreateScheduleCommand', input: expectedSchedule('DISABLED') },
      { command: 'UpdateScheduleCommand', input: expectedSchedule('DISABLED') },
    ]);
  });

  it('puts a rule with the pattern and a start-run target that passes the whole event', async () => {
    const { sent, clients } = recording({ DeleteScheduleCommand: 'ResourceNotFoundException' });
    await awsTriggerSync(config, clients).sync(request({ trigger: eventTrigger }));
    expect(sent).toEqual([
      {
        command: 'PutRuleCommand',
        input: {
          Name: 'wf-wf_abc123def456',
          EventBusName: 'wf-events',
          Description: 'Workflow nightly-report (wf_abc123def456) of 123456789012:role:Builder',
          EventPattern:
            '{"source":["com.example.orders"],"detail":{"total":[{"numeric":[">",100]}],"wf-owner":["123456789012:role:Builder"]}}',
          State: 'ENABLED',
        },
      },
      {
        command: 'PutTargetsCommand',
        input: {
          Rule: 'wf-wf_abc123def456',
          EventBusName: 'wf-events',
          Targets: [
            {
              Id: 'start-run',
              Arn: config.startRunFunctionArn,
              DeadLetterConfig: { Arn: config.deadLetterQueueArn },
              InputTransformer: {
                InputTemplate:
                  '{"owner":"123456789012:role:Builder","workflowId":"wf_abc123def456","event":<aws.events.event.json>}',
              },
            },
          ],
        },
      },
      deleteSchedule,
    ]);
  });

  it('keeps a disabled event workflow’s rule, DISABLED', async () => {
    const { sent, clients } = recording();
    await awsTriggerSync(config, clients).sync(request({ trigger: eventTrigger, enabled: false }));
    expect(sent[0]).toMatchObject({ command: 'PutRuleCommand', input: { State: 'DISABLED' } });
  });

  it.each([
    ['a deleted workflow', request({ deleted: true, enabled: false })],
    ['an on-demand workflow', request({ trigger: { type: 'on_demand' } })],
  ])('removes both the schedule and the rule of %s, ignoring ResourceNotFound', async (_label, sync) => {
    const { sent, clients } = recording({
      DeleteScheduleCommand: 'ResourceNotFoundException',
      RemoveTargetsCommand: 'ResourceNotFoundException',
      DeleteRuleCommand: 'ResourceNotFoundException',
    });
    await awsTriggerSync(config, clients).sync(sync);
    expect(sent).toEqual([deleteSchedule, ...removeRule]);
  });

  it('wraps any other failure in TriggerSyncError with the SDK error as cause', async () => {
    const { clients } = recording({ CreateScheduleCommand: 'ValidationException' });
    const failure = awsTriggerSync(config, clients).sync(request());
    await expect(failure).rejects.toBeInstanceOf(TriggerSyncError);
    await expect(failure).rejects.toMatchObject({ cause: { name: 'ValidationException' } });
  });

  it.each([
    ['PutTargetsCommand', eventTrigger, false],
    ['RemoveTargetsCommand', scheduleTrigger, false],
    ['RemoveTargetsCommand', eventTrigger, true],
  ] as const)(
    'fails the sync when %s answers 200 with a failed entry (%o, deleted: %s)',
    async (command, trigger, deleted) => {
      const failedEntry = {
        FailedEntryCount: 1,
        FailedEntries: [
          { TargetId: 'start-run', ErrorCode: 'ConcurrentModificationException', ErrorMessage: 'busy' },
        ],
      };
      const { clients } = recording({}, { [command]: failedEntry });
      const failure = awsTriggerSync(config, clients).sync(request({ trigger, deleted }));
      await expect(failure).rejects.toBeInstanceOf(TriggerSyncError);
      await expect(failure).rejects.toMatchObject({
        cause: {
          name: 'TargetsFailedError',
          message: expect.stringContaining('start-run: ConcurrentModificationException'),
        },
      });
    },
  );

  it('names a rule by a digest when prefix and workflow id exceed 64 characters, always fitting', async () => {
    const { sent, clients } = recording();
    const prefix = 'p'.repeat(32);
    const workflowId = `wf_${'a'.repeat(40)}`;
    await awsTriggerSync({ ...config, ruleNamePrefix: prefix }, clients).sync(
      request({ trigger: eventTrigger, workflowId }),
    );
    const inputOf = (list: Sent[], index: number) => list[index]?.input as Record<string, string>;
    const name = inputOf(sent, 0).Name;
    expect(name).toMatch(new RegExp(`^${prefix}[0-9a-f]{32}$`));
    expect(sent[1]?.input).toMatchObject({ Rule: name });
    const other = recording();
    await awsTriggerSync({ ...config, ruleNamePrefix: prefix }, other.clients).sync(
      request({ trigger: eventTrigger, workflowId: `wf_${'a'.repeat(39)}b` }),
    );
    expect(inputOf(other.sent, 0).Name).not.toBe(name);
  });

  it('matches only the owner’s events: the rule pattern is the workflow pattern AND the owner stamp', async () => {
    const { sent, clients } = recording();
    const pattern = { source: ['com.example.orders'], $or: [{ detail: { a: [1] } }, { detail: { b: [2] } }] };
    await awsTriggerSync(config, clients).sync(request({ trigger: { type: 'event', pattern } }));
    const sentPattern = JSON.parse(
      String((sent[0]?.input as Record<string, unknown> | undefined)?.EventPattern),
    );
    expect(sentPattern).toEqual({ ...pattern, detail: { 'wf-owner': ['123456789012:role:Builder'] } });
    const event = (owner: string) => ({
      source: 'com.example.orders',
      'detail-type': 'x',
      detail: { a: 1, 'wf-owner': owner },
    });
    expect(matchesEventPattern(sentPattern, event('123456789012:role:Builder'))).toBe(true);
    expect(matchesEventPattern(sentPattern, event('123456789012:role:Other'))).toBe(false);
    expect(matchesEventPattern(pattern, event('123456789012:role:Other'))).toBe(true);
  });

  it('refuses to put a rule whose stamped pattern is over 2,048 characters, sending nothing', async () => {
    const { sent, clients } = recording();
    const pattern = { source: ['s'.repeat(2048 - 40)] }; // fits alone, not with the stamp
    const failure = awsTriggerSync(config, clients).sync(request({ trigger: { type: 'event', pattern } }));
    await expect(failure).rejects.toMatchObject({
      cause: expect.objectContaining({ message: expect.stringMatching(/^trigger\.pattern: \d+ characters/) }),
    });
    expect(sent).toEqual([]);
  });
});

describe('awsTriggerSyncConfigFromEnv', () => {
  it('reads the names the CDK Triggers construct sets', () => {
    expect(
      awsTriggerSyncConfigFromEnv({
        WF_SCHEDULE_GROUP_NAME: config.scheduleGroupName,
        WF_SCHEDULER_ROLE_ARN: config.schedulerRoleArn,
        WF_EVENT_BUS_NAME: config.eventBusName,
        WF_EVENT_RULE_PREFIX: 'rt-',
        WF_START_RUN_FUNCTION_ARN: config.startRunFunctionArn,
        WF_TRIGGER_DLQ_ARN: config.deadLetterQueueArn,
      }),
    ).toEqual({ ...config, ruleNamePrefix: 'rt-' });
  });

  it('refuses a rule prefix longer than 32 characters', () => {
    expect(() =>
      awsTriggerSyncConfigFromEnv({
        WF_SCHEDULE_GROUP_NAME: config.scheduleGroupName,
        WF_SCHEDULER_ROLE_ARN: config.schedulerRoleArn,
        WF_EVENT_BUS_NAME: config.eventBusName,
        WF_EVENT_RULE_PREFIX: 'p'.repeat(33),
        WF_START_RUN_FUNCTION_ARN: config.startRunFunctionArn,
        WF_TRIGGER_DLQ_ARN: config.deadLetterQueueArn,
      }),
    ).toThrow(TriggerSyncConfigError);
  });

  it('names every missing variable', () => {
    expect(() => awsTriggerSyncConfigFromEnv({ WF_EVENT_BUS_NAME: 'b' })).toThrow(
      /WF_SCHEDULE_GROUP_NAME, WF_SCHEDULER_ROLE_ARN, WF_START_RUN_FUNCTION_ARN, WF_TRIGGER_DLQ_ARN/,
    );
  });
});
