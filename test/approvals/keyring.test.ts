import { describe, expect, it } from 'vitest';
import { KeyringError, parseKeyring } from '../../shared/approvals/index.ts';
import { KEY_2024, KEY_2025 } from './fixtures.ts';

describe('parseKeyring', () => {
  it('parses a keyring with current and previous keys', () => {
    // Act
    const keyring = parseKeyring(JSON.stringify({ current: KEY_2025, previous: [KEY_2024] }));
    // Assess
    expect(keyring).toEqual({ current: KEY_2025, previous: [KEY_2024] });
  });

  it('parses a keyring without previous keys', () => {
    // Act
    const keyring = parseKeyring(JSON.stringify({ current: KEY_2025 }));
    // Assess
    expect(keyring).toEqual({ current: KEY_2025 });
    expect('previous' in keyring).toBe(false);
  });

  it.each([
    ['not JSON', '{"current": {"kid": "a", "secret": "abc', /not valid JSON/],
    ['missing current', JSON.stringify({ previous: [KEY_2024] }), /current/],
    ['a short secret', JSON.stringify({ current: { kid: 'a', secret: 'short' } }), /current\.secret: .*32/],
    ['a kid with a dot', JSON.stringify({ current: { ...KEY_2025, kid: 'a.b' } }), /current\.kid/],
    ['an unknown field', JSON.stringify({ current: KEY_2025, next: KEY_2024 }), /next/],
    ['a duplicate kid', JSON.stringify({ current: KEY_2025, previous: [KEY_2025] }), /k2025 is used twice/],
    ['previous not an array', JSON.stringify({ current: KEY_2025, previous: KEY_2024 }), /previous/],
  ])('refuses %s with a clear message', (_label, json, message) => {
    // Act / Assess
    expect(() => parseKeyring(json)).toThrow(KeyringError);
    expect(() => parseKeyring(json)).toThrow(message);
  });

  it.each([
    ['broken JSON', '{"current":{"kid":"a","secret":"hunter2-hunter2-hunter2-hunter2-x'],
    ['a short secret', JSON.stringify({ current: { kid: 'a', secret: 'hunter2' } })],
    ['a secret of the wrong type', JSON.stringify({ current: { kid: 'a', secret: ['hunter2'] } })],
  ])('never repeats the secret in the error for %s', (_label, json) => {
    // Act
    let error: unknown;
    try {
      parseKeyring(json);
    } catch (caught) {
      error = caught;
    }
    // Assess
    expect(error).toBeInstanceOf(KeyringError);
    expect(
      JSON.stringify({ message: (error as Error).message, issues: (error as KeyringError).issues }),
    ).not.toContain('hunter2');
    expect((error as Error).cause).toBeUndefined();
  });
});
