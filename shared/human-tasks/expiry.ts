/**
 * The graph executor's expiry port on this deployment's human-task records: what `CompleteStep` (graph-advance)
 * calls when a human task's wait timed out. Needs only the store and the clock: no keyring, no topic, no task
 * tokens (an expired task's wait is already over).
 */
import type { HumanTaskExpiryPort } from '../graph-run/human-task-port.ts';
import { closeFailedWaitTask, expireHumanTask } from './close.ts';
import type { HumanTaskDeps } from './deps.ts';

export function humanTaskExpiry(deps: Pick<HumanTaskDeps, 'store' | 'clock'>): HumanTaskExpiryPort {
  return {
    async expire(step) {
      const expired = await expireHumanTask(deps, step);
      return expired.status === 'submitted'
        ? { status: 'submitted', output: expired.output }
        : { status: expired.status };
    },
    closeFailed: (step, reason) => closeFailedWaitTask(deps, { ...step, reason }),
  };
}
