/**
 * `$$.State.RetryCount` for aws-local-stepfunctions, which has no `State` node in its context object. On AWS
 * it is 0 on a state's first attempt, counts the retries of that entry, and starts again at 0 on each new
 * entry into the state (https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html).
 *
 * The engine reports every entry (`StateEntered`) and every retry (`StateRetried`, after the backoff and
 * before the attempt runs) to its event log, in order, before the Task's local handler is called. The log is
 * read asynchronously, through promises only (no timers); so once the handler has let one macrotask pass,
 * every event dispatched before it was called has been counted here.
 *
 * Inside a Map (an event with the iteration's `index`) a handler call cannot be told apart by iteration, so the
 * count is per state name across the Map's iterations and an entry does not set it back to 0: it then still
 * orders the attempts of each iteration (a retry's count is above every earlier attempt's, which is what the
 * graph waits' fences need: shared/graph-run/wait-fence.ts), though a first attempt may see a count above 0.
 */
import type { EngineEvent } from './history.ts';

export class RetryCounts {
  readonly #byState = new Map<string, number>();

  /** Counts one engine event of the execution (local-step-functions.ts feeds its whole event log). */
  observe(event: EngineEvent): void {
    const name = event.state?.name;
    if (name === undefined) return;
    if (event.type === 'StateEntered') {
      if (event.index === undefined || !this.#byState.has(name)) this.#byState.set(name, 0);
    } else if (event.type === 'StateRetried') this.#byState.set(name, (this.#byState.get(name) ?? 0) + 1);
  }

  /** The retry count of the current attempt of `stateName`, once the events before it were counted. */
  async current(stateName: string): Promise<number> {
    await new Promise((resolve) => setImmediate(resolve));
    return this.#byState.get(stateName) ?? 0;
  }
}
