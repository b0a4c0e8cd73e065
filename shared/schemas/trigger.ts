/**
 * `trigger`: a schedule (cron / rate with a time zone), an EventBridge event pattern, or on demand. This module
 * holds the shapes, which every stored definition is read with; the save-time checks (the expression, the time
 * zone, the pattern and its size) are in trigger-checks.ts, so functions that only read definitions (a turn, a
 * run start) bundle neither croner nor the pattern validator.
 */
import * as z from '../zod.ts';

export const ScheduleTriggerSchema = z.strictObject({
  type: z.literal('schedule'),
  expression: z
    .string()
    .check(
      z.maxLength(256),
      z.describe('EventBridge Scheduler expression: cron(m h dom mon dow year) or rate(n unit).'),
    ),
  timezone: z._default(z.string(), 'UTC').check(z.describe('IANA time zone, e.g. Europe/Berlin.')),
});

export const EventTriggerSchema = z.strictObject({
  type: z.literal('event'),
  pattern: z
    .record(z.string(), z.unknown())
    .check(z.describe('An EventBridge event pattern, matched against events on the bus.')),
});

export const OnDemandTriggerSchema = z.strictObject({ type: z.literal('on_demand') });

export const TriggerSchema = z.discriminatedUnion('type', [
  ScheduleTriggerSchema,
  EventTriggerSchema,
  OnDemandTriggerSchema,
]);
export type Trigger = z.infer<typeof TriggerSchema>;
