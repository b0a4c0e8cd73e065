/**
 * The local stand-in for EventBridge Scheduler: every tick, the enabled schedule triggers (from the trigger
 * index) are evaluated with the same cron/rate and time-zone semantics, and each scheduled time starts one
 * run (keyed by the scheduled time, so a restart that re-fires a time starts nothing new).
 */
import type { Clock } from '../core/ports.ts';
import type { StartRunDeps } from '../runs/index.ts';
import { idempotencyFor, startRun, WorkflowNotRunnableError } from '../runs/index.ts';
import type { TriggerProvenance } from '../schemas/run.ts';
import type { DynamoStore } from '../store/index.ts';
import { ScheduleTicker, type TickReport } from '../triggers/index.ts';
import { dynamoCursorStore } from './schedule-cursors.ts';

export type LocalScheduler = { tick(): Promise<TickReport>; stop(): void };

export function startLocalScheduler(
  deps: StartRunDeps & { store: DynamoStore; clock: Clock },
  options: { intervalMs?: number; onFire?: (runId: string, key: string) => void } = {},
): LocalScheduler {
  const cursors = dynamoCursorStore(deps.store);
  const tick = async (): Promise<TickReport> => {
    const entries = await deps.store.listTriggerIndex('schedule');
    const schedules = entries.flatMap((entry) =>
      entry.trigger.type === 'schedule'
        ? [
            {
              key: `${entry.owner}#${entry.workflowId}`,
              expression: entry.trigger.expression,
              timezone: entry.trigger.timezone,
            },
          ]
        : [],
    );
    const ticker = new ScheduleTicker({
      clock: deps.clock,
      schedules,
      cursors,
      fire: async (key, scheduledTime) => {
        const [owner = '', workflowId = ''] = key.split('#');
        const trigger: TriggerProvenance = {
          type: 'schedule',
          scheduleName: `wf-${workflowId}`,
          scheduledTime: new Date(scheduledTime).toISOString(),
        };
        try {
          const { run } = await startRun(deps, {
            owner,
            workflowId,
            trigger,
            idempotency: idempotencyFor(trigger, workflowId)!,
            actor: 'system',
          });
          options.onFire?.(run.runId, key);
        } catch (error) {
          // A workflow disabled or deleted since the index was read: nothing to start.
          if (!(error instanceof WorkflowNotRunnableError)) throw error;
        }
      },
    });
    return ticker.tick();
  };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  if (options.intervalMs) {
    timer = setInterval(() => {
      running = running.then(tick).catch(() => undefined);
    }, options.intervalMs);
    timer.unref();
  }
  return {
    tick,
    stop: () => {
      if (timer) clearInterval(timer);
    },
  };
}
