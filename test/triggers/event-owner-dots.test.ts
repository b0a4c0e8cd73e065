/**
 * The owner stamp (`detail["wf-owner"]`) under EventBridge's dot semantics: a dot in a field name is nesting,
 * so `"detail.wf-owner"`, `{"detail": {"wf-owner.x": ..}}` and an event key `"wf-owner.x"` all reach the stamp.
 * None of them may forge it (match another owner's events) or dodge it.
 */
import { describe, expect, it } from 'vitest';
import {
  EventPatternError,
  eventOwnerOf,
  matchesEventPattern,
  ownerStampedPattern,
  patternOwnerIssues,
  stampDetail,
} from '../../shared/triggers/index.ts';

describe('patterns may not touch the stamp, however it is spelled', () => {
  it.each([
    ['a dotted top-level key', { 'detail.wf-owner': ['bob'] }, 'detail.wf-owner'],
    ['a dotted key inside detail', { detail: { 'wf-owner.x': ['bob'] } }, 'detail.wf-owner.x'],
    ['a field inside the stamp', { detail: { 'wf-owner': { x: ['bob'] } } }, 'detail.wf-owner'],
    ['a dotted key under the stamp', { 'detail.wf-owner.x': [{ exists: false }] }, 'detail.wf-owner.x'],
    ['a dotted key in a $or', { $or: [{ 'detail.wf-owner': ['bob'] }, { a: [1] }] }, '$or.0.detail.wf-owner'],
    [
      'a dotted key beside detail (Event Ruler would keep the last of the two)',
      { detail: { x: [1] }, 'detail.wf-owner': ['bob'] },
      'detail.wf-owner',
    ],
    ['absence of the stamp', { 'detail.wf-owner': [{ exists: false }] }, 'detail.wf-owner'],
  ])('refuses %s', (_what, pattern, path) => {
    expect(patternOwnerIssues(pattern).map((issue) => issue.path)).toEqual([path]);
    expect(() => ownerStampedPattern(pattern as never, 'alice')).toThrow(EventPatternError);
  });

  it('accepts dotted fields elsewhere, including names that only start like the stamp', () => {
    expect(
      patternOwnerIssues({ 'detail.total': [1], detail: { 'wf-owners': [1], x: { 'wf-owner': [1] } } }),
    ).toEqual([]);
  });

  it('stamps a dotted pattern so that only the owner’s events match', () => {
    const stamped = ownerStampedPattern({ 'detail.state.status': ['running'] }, 'alice');
    const event = (owner: string) => ({ detail: { state: { status: 'running' }, 'wf-owner': owner } });
    expect(matchesEventPattern(stamped, event('alice'))).toBe(true);
    expect(matchesEventPattern(stamped, event('bob'))).toBe(false);
  });
});

describe('event intake: detail keys that flatten into the stamp', () => {
  it('refuses a detail key inside the stamp, naming it', () => {
    expect(stampDetail({ total: 1, 'wf-owner.x': 'alice' }, 'bob')).toEqual({
      ok: false,
      issue: { path: 'wf-owner.x', message: expect.stringContaining('inside wf-owner') },
    });
  });

  it('refuses it even beside the caller’s own stamp', () => {
    expect(stampDetail({ 'wf-owner': 'bob', 'wf-owner.': 'x' }, 'bob').ok).toBe(false);
  });

  it('still stamps other dotted keys', () => {
    expect(stampDetail({ 'state.status': 'x', 'wf-owners': 1 }, 'bob')).toEqual({
      ok: true,
      detail: { 'state.status': 'x', 'wf-owners': 1, 'wf-owner': 'bob' },
    });
  });

  it('does not read an owner from an event that carries keys inside the stamp', () => {
    expect(eventOwnerOf({ detail: { 'wf-owner': 'alice' } })).toBe('alice');
    expect(eventOwnerOf({ detail: { 'wf-owner': 'alice', 'wf-owner.x': 1 } })).toBeUndefined();
  });
});
