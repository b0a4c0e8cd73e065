/**
 * One Redactor per owner. A secrets port lives as long as its container and serves every owner whose runs
 * land there, so what it has resolved must redact only that owner's text: with one shared set, another
 * owner's guess at a value was refused exactly when it was right (an oracle), and text fetched for them
 * lost whatever matched someone else's secret.
 *
 * Bounded, without ever redacting with a set that lacks a value still in use:
 * - A value is held for `holdMs` after it was last handed out (each resolve, cached or read, hands it out
 *   again), then forgotten. The default is Lambda's longest invocation, 15 minutes
 *   (https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html): an invocation that was handed a
 *   value has ended by then, so no text of it can still be waiting for redaction. Forgetting earlier, at the
 *   5-minute cache TTL, would not do: a Turn resolves before its model call and redacts after it, up to 10
 *   minutes later. A later invocation resolves its owner's credentials again before it redacts (as a fresh
 *   container must), so a forgotten value is what a cold container knows, no less.
 * - At most `maxOwners` owners are held. A new owner beyond that is refused (the resolve fails, so no value is
 *   handed out that could go unredacted) until the least recently served owner's hold ends. Evicting a held
 *   owner instead could drop the values of a run in flight (the local stack serves runs concurrently).
 */
import type { CredentialRef } from '../core/ports.ts';
import { CredentialError } from './errors.ts';
import { Redactor } from './redactor.ts';

/** Lambda's longest invocation: no value handed out is still in use after it. */
export const REDACTION_HOLD_MS = 15 * 60_000;

/** Owners one container holds values for at once (each holds a few KB per secret: its encoded forms). */
export const MAX_REDACTION_OWNERS = 1000;

export type OwnerRedactorsOptions = {
  /** @default MAX_REDACTION_OWNERS */
  maxOwners?: number;
  /** @default REDACTION_HOLD_MS */
  holdMs?: number;
  nowMs: () => number;
};

/** The `maxOwners` option from a secrets port's `maxRedactionOwners` (absent: the default). */
export const maxOwnersOf = (options: { maxRedactionOwners?: number }): { maxOwners?: number } =>
  options.maxRedactionOwners === undefined ? {} : { maxOwners: options.maxRedactionOwners };

/** One owner's values, oldest hand-out first, and the Redactor built from them (rebuilt when they change). */
class OwnerValues {
  readonly #handedOutAt = new Map<string, number>();
  #redactor: Redactor | undefined;

  add(value: string, at: number): void {
    if (!this.#handedOutAt.delete(value)) this.#redactor = undefined;
    this.#handedOutAt.set(value, at);
  }

  /** Forgets the values last handed out at or before `cutoff`; whether any is left. */
  forgetUpTo(cutoff: number): boolean {
    for (const [value, at] of this.#handedOutAt) {
      if (at > cutoff) break;
      this.#handedOutAt.delete(value);
      this.#redactor = undefined;
    }
    return this.#handedOutAt.size > 0;
  }

  get redactor(): Redactor {
    if (!this.#redactor) {
      this.#redactor = new Redactor();
      for (const value of this.#handedOutAt.keys()) this.#redactor.add(value);
    }
    return this.#redactor;
  }
}

export class OwnerRedactors {
  /** Least recently served owner first. */
  readonly #byOwner = new Map<string, OwnerValues>();
  readonly #maxOwners: number;
  readonly #holdMs: number;
  readonly #now: () => number;

  constructor(options: OwnerRedactorsOptions) {
    this.#maxOwners = options.maxOwners ?? MAX_REDACTION_OWNERS;
    this.#holdMs = options.holdMs ?? REDACTION_HOLD_MS;
    this.#now = options.nowMs;
  }

  /** How many owners' values are held now. */
  get owners(): number {
    this.#forgetIdle();
    return this.#byOwner.size;
  }

  /** Refuses `ref` (before its secret is read) when its owner is new and the cap is reached. */
  admit(ref: CredentialRef): void {
    this.#forgetIdle();
    if (this.#byOwner.has(ref.owner) || this.#byOwner.size < this.#maxOwners) return;
    throw new CredentialError(
      ref.secret,
      `not handed out: this container holds the credentials of ${this.#maxOwners} other owners, each resolved within the last ${this.#holdMs / 60_000} minutes; retry later`,
    );
  }

  /** Remembers `value` (and its encodings) as one of `ref.owner`'s secrets, handed out now; refuses as `admit`. */
  add(ref: CredentialRef, value: string): void {
    this.admit(ref);
    const values = this.#byOwner.get(ref.owner) ?? new OwnerValues();
    this.#byOwner.delete(ref.owner);
    this.#byOwner.set(ref.owner, values);
    values.add(value, this.#now());
  }

  /** `text` with `owner`'s held secret values cut out; other owners' values are not this owner's to see or hide. */
  redact(owner: string, text: string): string {
    const cutoff = this.#forgetIdle();
    const values = this.#byOwner.get(owner);
    // The sweep stops at the first owner still held: this owner's own older values (a rotated secret) go here.
    if (!values?.forgetUpTo(cutoff)) return text;
    return values.redactor.redact(text);
  }

  /**
   * Drops the owners none of whose values is still held, least recently served first: it stops at the first
   * owner served after the cutoff (every owner after it was served later still). Returns the cutoff.
   */
  #forgetIdle(): number {
    const cutoff = this.#now() - this.#holdMs;
    for (const [owner, values] of this.#byOwner) {
      if (values.forgetUpTo(cutoff)) break;
      this.#byOwner.delete(owner);
    }
    return cutoff;
  }
}
