/** Where the schedule ticker persists, per schedule, the last scheduled time it has handled. */

/**
 * A persisted cursor per schedule key. The cursor is the scheduled time (ISO 8601, UTC) up to which the schedule
 * has been handled: fired, or skipped as too old. Implementations must make `setCursor` durable before resolving.
 */
export interface ScheduleCursorStore {
  getCursor(key: string): Promise<string | undefined>;
  setCursor(key: string, scheduledTimeIso: string): Promise<void>;
}

/** A cursor store in memory, for tests and for a local stack that is fine with forgetting on restart. */
export class InMemoryCursorStore implements ScheduleCursorStore {
  readonly cursors = new Map<string, string>();

  async getCursor(key: string): Promise<string | undefined> {
    return this.cursors.get(key);
  }

  async setCursor(key: string, scheduledTimeIso: string): Promise<void> {
    this.cursors.set(key, scheduledTimeIso);
  }
}

/** Scheduled times as the ticker writes them: UTC, whole seconds, e.g. `2024-03-10T07:30:00Z`. */
export function toScheduledTimeIso(instantMs: number): string {
  return new Date(Math.floor(instantMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
