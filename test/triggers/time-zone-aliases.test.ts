import { describe, expect, it } from 'vitest';
import { timeZoneProblem } from '../../shared/triggers/time-zone.ts';
import { aliasSpelling, zoneAliases } from '../../shared/triggers/time-zone-aliases.ts';

describe('the list of zone links (time-zone-aliases.ts)', () => {
  const aliases = zoneAliases();

  it('lists only names Intl knows under another name, each once', () => {
    expect(aliases.length).toBeGreaterThan(140);
    expect(new Set(aliases).size).toBe(aliases.length);
    const resolved = aliases.map(
      (name) =>
        [name, new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone] as const,
    );
    expect(resolved.filter(([name, spelled]) => name === spelled)).toEqual([]);
  });

  it('accepts every link as spelled, and names the spelling for any other case', () => {
    expect(aliases.filter((name) => timeZoneProblem(name) !== undefined)).toEqual([]);
    for (const name of ['US/Pacific', 'Etc/UTC', 'America/Argentina/ComodRivadavia', 'Canada/Newfoundland']) {
      expect(aliasSpelling(name.toUpperCase())).toBe(name);
      expect(timeZoneProblem(name.toUpperCase())).toContain(`IANA spells it, ${JSON.stringify(name)}`);
    }
  });
});
