/**
 * When a human task's window ends. It opens when the wait first reaches the human-task function, not when
 * Advance sets the step running: the graph machine's Map runs at most `maxConcurrentSteps` iterations at once
 * and queues the rest (https://docs.aws.amazon.com/step-functions/latest/dg/state-map-inline.html), so a task
 * queued behind ten long waits would otherwise be sent a link that expired before it was sent. The end is
 * recorded with the wait (`input.expiresAt`); a re-driven wait of the same attempt keeps it, and a retried
 * step (a new attempt, its input cleared) opens a new window.
 */
import type { GraphStep } from '../schemas/graph-step.ts';

export function humanTaskWindowEnd(step: GraphStep, timeoutSeconds: number, nowMs: number): string {
  const recorded = (step.input as { expiresAt?: unknown } | undefined)?.expiresAt;
  if (typeof recorded === 'string' && !Number.isNaN(Date.parse(recorded))) return recorded;
  return new Date(nowMs + timeoutSeconds * 1000).toISOString();
}
