/** `trigger`: a schedule (cron / rate with a time zone), an EventBridge event pattern, or on demand. */
import * as z from 'zod';
import {
  MAX_EVENT_PATTERN_CHARS,
  patternOwnerIssues,
  validateEventPattern,
  validateScheduleExpression,
} from '../triggers/index.ts';

export const ScheduleTriggerSchema = z
  .object({
    type: z.literal('schedule'),
    expression: z
      .string()
      .max(256)
      .describe('EventBridge Scheduler expression: cron(m h dom mon dow year) or rate(n unit).'),
    timezone: z.string().default('UTC').describe('IANA time zone, e.g. Europe/Berlin.'),
  })
  .strict()
  .superRefine((trigger, ctx) => {
    const result = validateScheduleExpression(trigger.expression, trigger.timezone);
    if (!result.ok)
      for (const error of result.errors)
        ctx.addIssue({ code: 'custom', path: [error.field], message: error.message });
  });

export const EventTriggerSchema = z
  .object({
    type: z.literal('event'),
    pattern: z
      .record(z.string(), z.unknown())
      .describe('An EventBridge event pattern, matched against events on the bus.'),
  })
  .strict()
  .superRefine((trigger, ctx) => {
    const result = validateEventPattern(trigger.pattern);
    const issues = [...(result.ok ? [] : result.errors), ...patternOwnerIssues(trigger.pattern)];
    for (const error of issues) {
      ctx.addIssue({
        code: 'custom',
        path: ['pattern', ...(error.path ? error.path.split('.') : [])],
        message: error.message,
      });
    }
    // The rule's pattern adds the owner stamp (checked with the owner when saved); over the quota as written
    // can never fit. https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-quota.html
    const length = JSON.stringify(trigger.pattern).length;
    if (length > MAX_EVENT_PATTERN_CHARS) {
      ctx.addIssue({
        code: 'custom',
        path: ['pattern'],
        message: `the pattern is ${length} characters; EventBridge accepts at most ${MAX_EVENT_PATTERN_CHARS}, owner stamp included`,
      });
    }
  });

export const OnDemandTriggerSchema = z.object({ type: z.literal('on_demand') }).strict();

export const TriggerSchema = z.discriminatedUnion('type', [
  ScheduleTriggerSchema,
  EventTriggerSchema,
  OnDemandTriggerSchema,
]);
export type Trigger = z.infer<typeof TriggerSchema>;
