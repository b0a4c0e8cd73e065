/**
 * A mutable handle on the run: every write goes through it, so the fence (`rev`) is always current.
 * Writes can be staged (staged-change.ts) and ride on the next commit; `run` shows the run as it will be
 * once they land, while the fence stays on the revision last read or committed.
 * With `rebase` (a turn's handle, turn-conflict.ts), a commit that lost to a side write is re-applied on
 * the fresh run instead of failing.
 * A run's `error` is stored bounded and well-formed (stored-error.ts), whichever writer set it: the run ending of a
 * turn, MarkFailed, a cancel, an external run's end, a graph run's deadline, a start that never happened.
 */
import type { Run } from '../schemas/run.ts';
import type { Clock } from './ports.ts';
import { type ChangePart, canMerge, isEmptyPart, mergeParts } from './staged-change.ts';
import { RunConflictError } from './store-errors.ts';
import type { RunStore } from './store-port.ts';
import { storedError } from './stored-error.ts';
import type { ConflictRebase } from './turn-conflict.ts';

const isoAt = (clock: Clock): string => new Date(clock.nowMs()).toISOString();

export class RunHandle {
  /** The run as stored: the revision the next commit is fenced on. */
  #stored: Run;
  #staged: ChangePart = {};
  readonly #deps: { store: Pick<RunStore, 'commit'>; clock: Clock };
  readonly #rebase: ConflictRebase | undefined;
  constructor(run: Run, deps: { store: Pick<RunStore, 'commit'>; clock: Clock }, rebase?: ConflictRebase) {
    this.#stored = run;
    this.#deps = deps;
    this.#rebase = rebase;
  }

  /** The run with the staged writes applied (what the next commit will store, before its own change). */
  get run(): Run {
    return this.#staged.next ? this.#staged.next(this.#stored) : this.#stored;
  }

  /** What is staged and not yet committed (a turn reads its own staged ledger rows through this). */
  get staged(): Readonly<ChangePart> {
    return this.#staged;
  }

  /**
   * Keeps `change` for the next commit. Only for writes that need not be durable before the next one:
   * anything a dispatch or a model call relies on is committed first (`commit` carries what is staged).
   * What no longer fits one transaction with it (staged-change.ts) is committed first, as before merging.
   */
  async stage(change: ChangePart): Promise<void> {
    if (!canMerge(this.#staged, change)) await this.flush();
    this.#staged = mergeParts(this.#staged, change);
  }

  /** Commits what is staged, if anything (before a dispatch or a wait that must not hold it back). */
  async flush(): Promise<void> {
    if (!isEmptyPart(this.#staged)) await this.commit({});
  }

  /**
   * Commits what is staged and `change` in one transaction against the stored revision; `next` defaults to
   * the run with a fresh timestamp. A failed commit keeps what was staged, so a retry still carries it.
   */
  async commit(change: ChangePart): Promise<Run> {
    if (!canMerge(this.#staged, change)) await this.#commitStaged();
    const whole = mergeParts(this.#staged, change);
    for (let attempt = 1; ; attempt++) {
      try {
        this.#stored = await this.#commitOnce(whole);
        this.#staged = {};
        return this.#stored;
      } catch (error) {
        if (!(error instanceof RunConflictError) || !this.#rebase || attempt >= 5) throw error;
        const fresh = await this.#rebase(this.#stored);
        if (!fresh) throw error;
        this.#stored = fresh;
      }
    }
  }

  async #commitStaged(): Promise<void> {
    const staged = this.#staged;
    this.#staged = {};
    try {
      await this.commit(staged);
    } catch (error) {
      this.#staged = staged;
      throw error;
    }
  }

  async #commitOnce(change: ChangePart): Promise<Run> {
    const stamped = { ...this.#stored, updatedAt: isoAt(this.#deps.clock) };
    const next = change.next ? change.next(stamped) : stamped;
    const { next: _next, ...rest } = change;
    return this.#deps.store.commit({
      ...rest,
      run: this.#stored,
      next: {
        ...next,
        updatedAt: stamped.updatedAt,
        ...(next.error ? { error: storedError(next.error) } : {}),
      },
    });
  }
}
