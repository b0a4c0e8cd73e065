/**
 * Scripted-model fixtures from directories: every `*.fixture.json` in each (docs/local-development.md).
 * Read again when a request names a fixture not yet served, so a fixture written while the local stack runs
 * (`wf fixture init`, a recording) is picked up without a restart.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScriptedFixtureError } from './errors.ts';
import { fixtureKey, type ScriptedFixture } from './scripted-fixture.ts';

export const FIXTURE_SUFFIX = '.fixture.json';

/** The fixtures in `dirs` (missing directories hold none); a file that is not JSON is named in the error. */
export function readFixtureDirs(dirs: string[]): ScriptedFixture[] {
  const fixtures: ScriptedFixture[] = [];
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      if (!name.endsWith(FIXTURE_SUFFIX)) continue;
      const path = join(dir, name);
      try {
        const fixture = JSON.parse(readFileSync(path, 'utf8')) as ScriptedFixture;
        // A fixture file without a name serves the workflow its file is named after.
        fixtures.push({ ...fixture, name: fixture.name ?? name.slice(0, -FIXTURE_SUFFIX.length) });
      } catch (cause) {
        throw new ScriptedFixtureError(`scripted-model: ${path} is not JSON: ${(cause as Error).message}`, {
          cause,
        });
      }
    }
  }
  return fixtures;
}

/**
 * Fixtures by name and conversation: later directories override earlier ones (a project's own over the
 * examples); different recorded conversations of one workflow are all kept.
 */
export function mergeFixtures(...lists: ScriptedFixture[][]): ScriptedFixture[] {
  const byKey = new Map<string, ScriptedFixture>();
  for (const fixture of lists.flat()) byKey.set(fixtureKey(fixture), fixture);
  return [...byKey.values()];
}

/** How to add a missing fixture: the message a scripted-model "no fixture" error ends with. */
export const ADD_FIXTURE_HINT = (name: string) =>
  `add one: \`wf fixture init <the ${name} workflow file>\` writes fixtures/${name}${FIXTURE_SUFFIX} beside it, ` +
  'which `wf local up` (started in that directory, or with --fixtures DIR) serves; see docs/local-development.md';
