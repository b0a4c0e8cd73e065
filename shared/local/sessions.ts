/**
 * Browser sessions of the local stack: an owner's API key, presented once through a same-origin form, is
 * exchanged for a random session id in an HttpOnly, SameSite=Strict cookie. The key itself never sits in a
 * cookie or a URL. Sessions live in memory: a restart signs everyone out, which is the safe direction.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/ports.ts';

/** Name of the session cookie. */
export const SESSION_COOKIE = 'wf_session';

/** A session's lifetime: 12 hours. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export type Session = { owner: string; principal: string; expiresAtMs: number };

/** An in-memory session table with expiry, bounded so a client cannot grow it without limit. */
export type SessionTable = {
  /** A new session for `owner`; `principal` (default: the owner) is who the console acts as. */
  create(owner: string, principal?: string): { id: string; maxAgeSeconds: number };
  /** The owner of a live session, or undefined (unknown, malformed or expired). */
  owner(id: string | undefined): string | undefined;
  /** The owner and principal of a live session, or undefined (unknown, malformed or expired). */
  identity(id: string | undefined): { owner: string; principal: string } | undefined;
  end(id: string | undefined): void;
};

/**
 * Up to `maxPerOwner` live sessions per owner (default 50; a new one drops that owner's oldest), so signing in
 * with one owner's key, however often, never signs another owner out; and up to `max` in all (default 5,000;
 * the oldest of any owner dropped), so a stack with many owners does not grow without bound either.
 */
export function sessionTable(
  clock: Clock,
  options: { maxPerOwner?: number; max?: number } = {},
): SessionTable {
  const maxPerOwner = options.maxPerOwner ?? 50;
  const max = options.max ?? 5_000;
  const sessions = new Map<string, Session>();
  /** Makes room for one more session of `owner`; Map keeps insertion order, so the first found is the oldest. */
  const sweep = (nowMs: number, owner: string) => {
    for (const [id, session] of sessions) if (session.expiresAtMs <= nowMs) sessions.delete(id);
    const own = [...sessions].filter(([, session]) => session.owner === owner).map(([id]) => id);
    for (const id of own.slice(0, Math.max(0, own.length - maxPerOwner + 1))) sessions.delete(id);
    while (sessions.size >= max) sessions.delete(sessions.keys().next().value as string);
  };
  const identity = (id: string | undefined) => {
    if (id === undefined || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
    const session = sessions.get(id);
    if (session === undefined) return undefined;
    if (session.expiresAtMs <= clock.nowMs()) {
      sessions.delete(id);
      return undefined;
    }
    return { owner: session.owner, principal: session.principal };
  };
  return {
    create(owner, principal = owner) {
      const nowMs = clock.nowMs();
      sweep(nowMs, owner);
      const id = randomBytes(32).toString('base64url');
      sessions.set(id, { owner, principal, expiresAtMs: nowMs + SESSION_TTL_MS });
      return { id, maxAgeSeconds: SESSION_TTL_MS / 1000 };
    },
    owner: (id) => identity(id)?.owner,
    identity,
    end(id) {
      if (id !== undefined) sessions.delete(id);
    },
  };
}
