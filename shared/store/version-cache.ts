/**
 * A bounded, least-recently-used cache of workflow versions for one container. A published version never
 * changes (workflows.ts writes each one once, `attribute_not_exists`; a draft is published once, then never
 * written again), so the store keeps only published versions here, and one read once can be reused
 * by every later turn in the same container without a DynamoDB read. The key holds the owner: a version is
 * only ever found again under the owner it was read for. Only found versions are kept: a version missing
 * now may be written later, and the live policy (the workflow head) is never cached.
 *
 * A kept version is deeply frozen and handed out as it is: a caller cannot change what the next turn reads (a
 * write to it throws), and no turn pays for a copy (a structuredClone of the version on every turn, issue #16).
 */
import type { WorkflowVersion } from '../schemas/workflow-record.ts';

/** Versions kept per container; a version is a few KB, so this bounds the cache to a few MB. */
export const VERSION_CACHE_SIZE = 256;

export class VersionCache {
  readonly #entries = new Map<string, WorkflowVersion>();
  readonly #capacity: number;

  constructor(capacity = VERSION_CACHE_SIZE) {
    this.#capacity = capacity;
  }

  /** The cached version, deeply frozen (refreshed as most recently used), or undefined. */
  get(owner: string, workflowId: string, version: number): WorkflowVersion | undefined {
    const key = keyOf(owner, workflowId, version);
    const found = this.#entries.get(key);
    if (!found) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, found);
    return found;
  }

  /**
   * Keeps a frozen copy of `value` (the caller's object stays its own, unfrozen), evicting the least recently
   * used entry past the capacity.
   */
  set(owner: string, workflowId: string, version: number, value: WorkflowVersion): void {
    const key = keyOf(owner, workflowId, version);
    this.#entries.delete(key);
    this.#entries.set(key, deepFreeze(structuredClone(value)));
    while (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** JSON, so no owner or workflow id can be crafted to collide with another's key. */
const keyOf = (owner: string, workflowId: string, version: number) =>
  JSON.stringify([owner, workflowId, version]);

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}
