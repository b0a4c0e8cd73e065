/**
 * `trigger`: a schedule (cron / rate with a time zone), an EventBridge event pattern, or on demand. This module
 * holds the shapes, which every stored definition is read with; the save-time checks (the expression, the time
 * zone, the pattern and its size) are in trigger-checks.ts, so functions that only read definitions (a turn, a
 * run start) bundle neither croner nor the pattern validator.
 */
import * as z from 'zod';

export const ScheduleTriggerSchema = z
  .object({
    type: z.literal('schedule'),
    expression: z
      .string()
      .max(256)
      .describe('EventBridge Scheduler expression: cron(m h dom mon dow year) or rate(n unit).'),
    timezone: z.string().default('UTC').describe('IANA time zone, e.g. Europe/Berlin.'),
  })
  .strict();

export const EventTriggerSchema = z
  .object({
    type: z.literal('event'),
    pattern: z
      .record(z.string(), z.unknown())
      .describe('An EventBridge event pattern, matched against events on the bus.'),
  })
  .strict();

export const OnDemandTriggerSchema = z.object({ type: z.literal('on_demand') }).strict();

export const TriggerSchema = z.discriminatedUnion('type', [
  ScheduleTriggerSchema,
  EventTriggerSchema,
  OnDemandTriggerSchema,
]);
export type Trigger = z.infer<typeof TriggerSchema>;
