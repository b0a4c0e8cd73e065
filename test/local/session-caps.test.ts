/**
 * The local stack's browser sessions are bounded per owner: posting one owner's key over and over (a script,
 * a stuck form) signs that owner's own oldest sessions out, never another owner's.
 */
import { describe, expect, it } from 'vitest';
import { sessionTable } from '../../shared/local/sessions.ts';
import { FixedClock } from '../support/store.ts';

describe('Function: sessionTable', () => {
  it("keeps alice signed in however many sessions bob's key opens, and drops bob's own oldest", () => {
    // Prepare
    const sessions = sessionTable(new FixedClock());
    const alice = sessions.create('alice');

    // Act: more sessions for bob than the table used to hold in all.
    const bobs = Array.from({ length: 1_000 }, () => sessions.create('bob'));

    // Assess
    expect(sessions.owner(alice.id)).toBe('alice');
    expect(bobs.filter((session) => sessions.owner(session.id) === 'bob')).toHaveLength(50);
    expect(sessions.owner(bobs.at(-1)!.id)).toBe('bob');
    expect(sessions.owner(bobs[0]!.id)).toBeUndefined();
  });

  it('drops the oldest session of any owner once the table holds `max` in all', () => {
    // Prepare
    const sessions = sessionTable(new FixedClock(), { maxPerOwner: 2, max: 3 });
    const [a, b, c] = ['a', 'b', 'c'].map((owner) => sessions.create(owner));

    // Act
    const d = sessions.create('d');

    // Assess
    expect([a, b, c, d].map((session) => sessions.owner(session!.id))).toEqual([undefined, 'b', 'c', 'd']);
  });
});
