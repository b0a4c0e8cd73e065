/**
 * A per-owner cache that keeps only the most recently used owners. A warm container serves every owner whose
 * runs land there; what it caches per owner (role sessions, clients signed with them) must not grow with every
 * owner it has ever seen. Only for what can be made again on demand: an evicted entry is rebuilt, and a
 * caller still holding one keeps using it.
 */

/** Owners whose sessions and clients one container keeps (each a few KB). */
export const MAX_CACHED_OWNERS = 256;

export class RecentOwners<T> {
  /** Least recently used first. */
  readonly #byOwner = new Map<string, T>();
  readonly #max: number;

  constructor(max = MAX_CACHED_OWNERS) {
    this.#max = max;
  }

  get size(): number {
    return this.#byOwner.size;
  }

  get(owner: string): T | undefined {
    const value = this.#byOwner.get(owner);
    if (value !== undefined) this.set(owner, value);
    return value;
  }

  set(owner: string, value: T): void {
    this.#byOwner.delete(owner);
    this.#byOwner.set(owner, value);
    for (const oldest of this.#byOwner.keys()) {
      if (this.#byOwner.size <= this.#max) break;
      this.#byOwner.delete(oldest);
    }
  }

  /** Drops `owner`'s entry if it is still `value` (a newer one stays). */
  deleteIf(owner: string, value: T): void {
    if (this.#byOwner.get(owner) === value) this.#byOwner.delete(owner);
  }
}
