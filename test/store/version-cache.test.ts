/** The container's cache of immutable workflow versions (shared/store/version-cache.ts). */
import { describe, expect, it } from 'vitest';
import type { WorkflowVersion } from '../../shared/schemas/workflow-record.ts';
import { VersionCache } from '../../shared/store/version-cache.ts';

const version = (n: number) => ({ version: n, definition: { name: `v${n}` } }) as unknown as WorkflowVersion;

describe('VersionCache', () => {
  it('keeps at most its capacity, evicting the least recently used', () => {
    // Prepare
    const cache = new VersionCache(2);
    cache.set('o', 'w', 1, version(1));
    cache.set('o', 'w', 2, version(2));

    // Act: use 1, then add 3: 2 is the least recently used.
    cache.get('o', 'w', 1);
    cache.set('o', 'w', 3, version(3));

    // Assess
    expect(cache.size).toBe(2);
    expect(cache.get('o', 'w', 2)).toBeUndefined();
    expect(cache.get('o', 'w', 1)?.version).toBe(1);
    expect(cache.get('o', 'w', 3)?.version).toBe(3);
  });

  it('finds a version only under the owner and workflow it was read for', () => {
    const cache = new VersionCache();
    cache.set('owner-a', 'w', 1, version(1));
    expect(cache.get('owner-b', 'w', 1)).toBeUndefined();
    expect(cache.get('owner-a', 'other', 1)).toBeUndefined();
    // Ids that would collide if joined naively stay apart.
    cache.set('a#b', 'c', 1, version(7));
    expect(cache.get('a', 'b#c', 1)).toBeUndefined();
  });

  it('hands out what it keeps, frozen: changing it throws and does not change what it keeps', () => {
    const cache = new VersionCache();
    const read = version(1);
    cache.set('o', 'w', 1, read);
    const got = cache.get('o', 'w', 1)!;
    expect(() => {
      (got.definition as unknown as { name: string }).name = 'changed';
    }).toThrow(TypeError);
    expect((cache.get('o', 'w', 1)!.definition as unknown as { name: string }).name).toBe('v1');
    // The caller's own object is not frozen by keeping it, and changing it later changes nothing kept.
    (read.definition as unknown as { name: string }).name = 'mine';
    expect((cache.get('o', 'w', 1)!.definition as unknown as { name: string }).name).toBe('v1');
  });

  it('copies a version once, when kept, not on every turn that reads it (issue #16)', () => {
    const cache = new VersionCache();
    cache.set('o', 'w', 1, version(1));
    expect(cache.get('o', 'w', 1)).toBe(cache.get('o', 'w', 1));
  });
});
