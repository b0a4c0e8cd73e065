/**
 * One Redactor per owner. A secrets port lives as long as its container and serves every owner whose runs
 * land there, so what it has resolved must redact only that owner's text: with one shared set, another
 * owner's guess at a value was refused exactly when it was right (an oracle), and text fetched for them
 * lost whatever matched someone else's secret.
 */
import { Redactor } from './redactor.ts';

export class OwnerRedactors {
  readonly #byOwner = new Map<string, Redactor>();

  /** Remembers `value` (and its encodings) as one of `owner`'s secrets. */
  add(owner: string, value: string): void {
    let redactor = this.#byOwner.get(owner);
    if (!redactor) {
      redactor = new Redactor();
      this.#byOwner.set(owner, redactor);
    }
    redactor.add(value);
  }

  /** `text` with `owner`'s known secret values cut out; other owners' values are not this owner's to see or hide. */
  redact(owner: string, text: string): string {
    return this.#byOwner.get(owner)?.redact(text) ?? text;
  }
}
