/**
 * The save-time checks of a trigger (`CheckedTriggerSchema`): a schedule's expression and time zone as
 * EventBridge Scheduler takes them, an event pattern as EventBridge takes it, with the owner stamp it will get.
 * Definitions being saved (AnyWorkflowDefinitionSchema) use it; a stored definition passed it when it was saved
 * and is read with the shape alone (trigger.ts), so a rule added later never makes an old version unreadable.
 */

import {
  MAX_EVENT_PATTERN_CHARS,
  patternOwnerIssues,
  validateEventPattern,
  validateScheduleExpression,
} from '../triggers/index.ts';
import * as z from '../zod.ts';
import {
  EventTriggerSchema,
  OnDemandTriggerSchema,
  ScheduleTriggerSchema,
  type TriggerSchema,
} from './trigger.ts';

const CheckedScheduleTriggerSchema = ScheduleTriggerSchema.check(
  z.superRefine((trigger, ctx) => {
    const result = validateScheduleExpression(trigger.expression, trigger.timezone);
    if (!result.ok)
      for (const error of result.errors)
        ctx.addIssue({ code: 'custom', path: [error.field], message: error.message });
  }),
);

const CheckedEventTriggerSchema = EventTriggerSchema.check(
  z.superRefine((trigger, ctx) => {
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
  }),
);

/** A trigger being saved: the shape of `TriggerSchema` and every save-time check. */
export const CheckedTriggerSchema: typeof TriggerSchema = z.discriminatedUnion('type', [
  CheckedScheduleTriggerSchema,
  CheckedEventTriggerSchema,
  OnDemandTriggerSchema,
]);
