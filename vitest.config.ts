import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/dynamodb-local.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time. Vitest's default (cores - 1 workers) runs a single file at a time on a 2-core
    // machine, and most slow files wait (on DynamoDB Local, local Step Functions timers, child processes, a
    // browser) far more than they compute. Files share one DynamoDB Local; each
    // writes its own owners and ids (or its own table), so two files running at once never share items.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
