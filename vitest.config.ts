import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { splitByIsolation } from './test/setup/isolation.ts';

const root = fileURLToPath(new URL('.', import.meta.url));
const { isolated } = splitByIsolation(root);

const common = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks',
} as const;

export default defineConfig({
  test: {
    // One DynamoDB Local for the whole run: the global setup is the root's only (the projects below do not
    // extend it), and both projects read its endpoint through `inject`, which falls back to the root's context.
    // The local stack's state machines are synthesized once too (test/setup/local-definitions.ts). The run's
    // temporary directory (test/setup/temp-dir.ts) comes first, so that every setup after it writes there.
    globalSetup: [
      'test/setup/temp-dir.ts',
      'test/setup/dynamodb-local.ts',
      'test/setup/local-definitions.ts',
    ],
    // Two files at a time. Vitest's default (cores - 1 workers) runs a single file at a time on a 2-core
    // machine, and most slow files wait (on DynamoDB Local, local Step Functions timers, child processes, a
    // browser) far more than they compute. Files share one DynamoDB Local; each
    // writes its own owners and ids (or its own table), so two files running at once never share items.
    maxWorkers: 2,
    reporters: ['default'],
    // Two projects (test/setup/isolation.ts decides which file goes where, from its imports and its text):
    // - `isolated`: files that reach process-wide singletons (the Lambda runtime's clients, telemetry), mock,
    //   spy or change the environment. Each gets a fresh module graph, as before.
    // - `shared`: every other file. A worker imports the project's modules once and runs many files on them
    //   (`isolate: false`); a file isolated re-imports ~270 modules and the SDKs, the suite's largest cost.
    projects: [
      { test: { ...common, name: 'isolated', include: isolated, isolate: true } },
      {
        test: {
          ...common,
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...isolated],
          isolate: false,
        },
      },
    ],
  },
});
