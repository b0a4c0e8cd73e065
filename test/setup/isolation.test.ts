/**
 * The split of test files between the `isolated` and the `shared` vitest projects (vitest.config.ts): a file
 * that reaches a process-wide singleton, or mocks, spies or changes the environment, runs isolated; the rest
 * share a worker's module cache. Checked on a small project written to a temporary folder, and on this one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isolationOf, splitByIsolation } from './isolation.ts';

const root = mkdtempSync(join(tmpdir(), 'wf-isolation-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

write({
  'shared/core/pure.ts': 'export const one = 1;\n',
  'shared/runtime/aws/store.ts': 'let store; export const get = () => (store ??= {});\n',
  'shared/runtime/telemetry.ts': 'export const t = 1;\n',
  'shared/api/uses-store.ts': "export * from '../runtime/aws/store.ts';\n",
  'functions/handler.ts':
    "import { one } from '../shared/core/pure.ts';\nexport const handler = () => one;\n",
  'shared/local/http.ts': "import { serve } from '@hono/node-server';\nexport const up = () => serve;\n",
  'test/support/hooks.ts': "import { afterEach } from 'vitest';\nafterEach(() => undefined);\n",
  'test/support/per-test.ts':
    "import { onTestFinished } from 'vitest';\nexport const f = () => onTestFinished(() => {});\n",
  'test/support/pure.ts': "export { one } from '../../shared/core/pure.ts';\n",
  'test/support/env.ts': "process.env.WF_X = 'y';\nexport const x = 1;\n",
  'test/a/pure.test.ts': "import { one } from '../support/pure.ts';\nimport '../../shared/core/pure.ts';\n",
  'test/a/deep-store.test.ts': "import { get } from '../../shared/api/uses-store.ts';\n",
  'test/a/telemetry.test.ts': "const t = await import('../../shared/runtime/telemetry.ts');\n",
  'test/a/handler.test.ts': "import { handler } from '../../functions/handler.ts';\n",
  'test/a/helpers.test.ts': "import { x } from '../support/hooks.ts';\n",
  'test/a/per-test.test.ts': "import { f } from '../support/per-test.ts';\nbeforeAll(() => undefined);\n",
  'test/a/serves.test.ts': "import { up } from '../../shared/local/http.ts';\n",
  'test/a/mock.test.ts': "import { vi } from 'vitest';\nvi.mock('node:fs');\n",
  'test/a/spy.test.ts': "import { vi } from 'vitest';\nvi.spyOn(console, 'log');\n",
  'test/a/stub-env.test.ts': "import { vi } from 'vitest';\nvi.stubEnv('A', 'b');\n",
  'test/a/timers.test.ts': "import { vi } from 'vitest';\nvi.useFakeTimers();\n",
  'test/a/env-assign.test.ts': "process.env['AWS_REGION'] = 'eu-west-1';\n",
  'test/a/env-delete.test.ts': 'delete process.env.AWS_REGION;\n',
  'test/a/env-read.test.ts': "const region = process.env.AWS_REGION === 'x';\n",
  'test/a/folder.test.ts': "// A folder is named here, as in a comment: import '../support/';\n",
  'test/a/via-support.test.ts': "import { x } from '../support/env.ts';\n",
  'test/a/computed-import.test.ts': "const target = '../../x.ts';\nconst m = await import(target);\n",
});

describe('Which test files share a module cache', () => {
  it('shares a file whose graph holds pure modules only, and one that only reads the environment', () => {
    expect(isolationOf(root, 'test/a/pure.test.ts').reasons).toEqual([]);
    expect(isolationOf(root, 'test/a/folder.test.ts').reasons).toEqual([]);
    expect(isolationOf(root, 'test/a/env-read.test.ts').reasons).toEqual([]);
  });

  it('isolates a file that reaches a runtime singleton, telemetry or a handler, however deep', () => {
    expect(isolationOf(root, 'test/a/deep-store.test.ts').reasons).toEqual([
      'reaches shared/runtime/aws/store.ts',
    ]);
    expect(isolationOf(root, 'test/a/telemetry.test.ts').reasons).toEqual([
      'reaches shared/runtime/telemetry.ts',
    ]);
    expect(isolationOf(root, 'test/a/handler.test.ts').reasons).toEqual(['reaches functions/handler.ts']);
  });

  it('isolates a file that reaches a module serving with @hono/node-server (it replaces the global Response)', () => {
    expect(isolationOf(root, 'test/a/serves.test.ts').reasons).toEqual([
      "shared/local/http.ts: from '@hono/node-server'",
    ]);
  });

  it('isolates a file whose support module registers hooks at its top level', () => {
    expect(isolationOf(root, 'test/a/helpers.test.ts').reasons).toEqual([
      'test/support/hooks.ts: afterEach(',
    ]);
    // Hooks registered per test, or by the test file itself (its own hooks serve its own tests), share.
    expect(isolationOf(root, 'test/a/per-test.test.ts').reasons).toEqual([]);
  });

  it('isolates a file that mocks, spies, stubs, fakes timers or changes the environment (itself or a support module)', () => {
    for (const file of [
      'mock',
      'spy',
      'stub-env',
      'timers',
      'env-assign',
      'env-delete',
      'via-support',
      'computed-import',
    ])
      expect({ file, isolated: isolationOf(root, `test/a/${file}.test.ts`).reasons.length > 0 }).toEqual({
        file,
        isolated: true,
      });
  });

  it('splits every test file into exactly one project', () => {
    const { isolated, shared } = splitByIsolation(root);
    expect(shared).toEqual([
      'test/a/env-read.test.ts',
      'test/a/folder.test.ts',
      'test/a/per-test.test.ts',
      'test/a/pure.test.ts',
    ]);
    expect(isolated).toHaveLength(13);
  });

  it('isolates the files of this project known to stub the environment or reach the runtime singletons', () => {
    const project = process.cwd();
    const { isolated, shared } = splitByIsolation(project);
    for (const file of [
      'test/runtime/lambda-credentials.test.ts',
      'test/runtime/turn-telemetry.test.ts',
      'test/model/model-router.test.ts',
      'test/console/aws-proxy.test.ts',
    ])
      expect(isolated).toContain(file);
    expect(shared).toContain('test/triggers/time-zone-aliases.test.ts');
    // This file's fixtures spell out the hazards it looks for: the textual scan errs towards isolation.
    expect(isolated).toContain('test/setup/isolation.test.ts');
    expect(new Set([...isolated, ...shared]).size).toBe(isolated.length + shared.length);
  });
});
