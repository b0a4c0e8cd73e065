/** Every fenced block of docs/event-triggers.md, checked against the inputs the AWS trigger sync really sends. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { StartRunEventSchema } from '../../functions/start-run.ts';
import { type Trigger, TriggerSchema } from '../../shared/schemas/trigger.ts';
import { ownerStampedPattern } from '../../shared/triggers/index.ts';
import { scheduleInput, targetsInput } from '../../shared/triggers-sync/aws-inputs.ts';
import { blockWith, fencedBlocks } from './fenced-blocks.ts';

const PAGE = 'event-triggers.md';
const page = readFileSync(new URL(`../../docs/${PAGE}`, import.meta.url), 'utf8');
/** The page's placeholders, as the config values, so the code's output can be compared with the page verbatim. */
const config = {
  scheduleGroupName: '<WF_SCHEDULE_GROUP_NAME>',
  schedulerRoleArn: '<WF_SCHEDULER_ROLE_ARN>',
  eventBusName: 'bus',
  ruleNamePrefix: 'wf-',
  startRunFunctionArn: '<WF_START_RUN_FUNCTION_ARN>',
  deadLetterQueueArn: '<WF_TRIGGER_DLQ_ARN>',
};
const request = (trigger: Trigger) => ({
  owner: '…',
  workflowId: 'wf_abc123def456',
  name: 'daily',
  enabled: true,
  deleted: false,
  trigger,
});

describe('docs/event-triggers.md', () => {
  it('has the six blocks this file checks (the shell redrive recipe is AWS CLI, not ours)', () => {
    expect(fencedBlocks(PAGE).map((block) => block.info)).toEqual([
      'ts',
      'json',
      'json',
      'json',
      'json',
      'sh',
    ]);
  });

  it("the sync call passes exactly TriggerSyncRequest's fields", () => {
    const call = blockWith(PAGE, 'triggerSync.sync(').body;
    const fields = /sync\(\{ (.*) \}\)/.exec(call)?.[1]?.split(', ');
    const port = readFileSync(new URL('../../shared/triggers-sync/port.ts', import.meta.url), 'utf8');
    const type = /export type TriggerSyncRequest = \{([\s\S]*?)\n\};/.exec(port)?.[1] ?? '';
    const declared = [...type.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]);
    expect(fields?.sort()).toEqual(declared.sort());
  });

  it('the schedule is the CreateSchedule input the sync sends (less its Description)', () => {
    const documented = JSON.parse(blockWith(PAGE, '"ScheduleExpression"').body);
    const trigger = {
      type: 'schedule',
      expression: documented.ScheduleExpression,
      timezone: documented.ScheduleExpressionTimezone,
    } as Trigger;
    // The page's expression and time zone are a trigger the workflow schema accepts.
    expect(TriggerSchema.safeParse(trigger).success).toBe(true);
    const { Description: _description, ...sent } = scheduleInput(config, request(trigger), trigger as never);
    expect(sent).toEqual(documented);
  });

  it('the rule pattern is the workflow pattern with its owner stamp', () => {
    const pattern = /with the pattern `(\{.*?\})` is sent as/.exec(page)?.[1] ?? '';
    const documented = JSON.parse(blockWith(PAGE, '"wf-owner": ["123456789012:role:Builder"]').body);
    expect(ownerStampedPattern(JSON.parse(pattern), '123456789012:role:Builder')).toEqual(documented);
  });

  it('the target is the PutTargets target the sync sends', () => {
    const documented = JSON.parse(blockWith(PAGE, '"InputTransformer"').body);
    const trigger = { type: 'event', pattern: { source: ['com.example.orders'] } } as Trigger;
    expect(TriggerSchema.safeParse(trigger).success).toBe(true);
    expect(targetsInput(config, request(trigger)).Targets?.[0]).toEqual(documented);
  });

  it("both start-run inputs parse with start-run's event schema", () => {
    const lines = blockWith(PAGE, '"scheduledTime": "2026-').body.split('\n');
    expect(lines).toHaveLength(2);
    const [scheduled, event] = lines.map((line) => StartRunEventSchema.parse(JSON.parse(line)));
    expect(scheduled).toHaveProperty('scheduledTime');
    expect(event).toHaveProperty('event.detail');
  });
});
