/**
 * The local stack runs the state machines it is given (`definitions`) instead of synthesizing its own, and the ones
 * the test run synthesized once (test/setup/local-definitions.ts) are the app's current synthesis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { synthesizeLocalDefinitions } from '../../infra/local-definition.ts';
import { startLocalStack } from '../../shared/local/stack.ts';
import { createOwnTable, removeDir, tempDataDir } from '../e2e/support.ts';
import { testDefinitions } from '../support/local-definitions.ts';

let table: { endpoint: string; tableName: string };
let dataDir: string;

beforeAll(async () => {
  table = await createOwnTable();
  dataDir = await tempDataDir();
});

afterAll(async () => {
  await removeDir(dataDir);
});

describe('The local stack given its state machines', () => {
  it('builds its run machine from the given definition, not from a synthesis of its own', async () => {
    // Prepare: the run machine's Task states mapped to no handler.
    const given = testDefinitions();
    given.run.functionByState = {};

    // Act
    const started = startLocalStack({
      port: 0,
      dataDir,
      schedulerIntervalMs: 0,
      print: () => undefined,
      dynamodbEndpoint: table.endpoint,
      tableName: table.tableName,
      definitions: given,
    });

    // Assess: the stack refuses it (the synthesized one maps every Task state).
    await expect(started).rejects.toThrow(/no handler mapped/);
  });

  it("is handed the test run's synthesis, which is the app's as synthesized now", () => {
    expect(testDefinitions()).toEqual(synthesizeLocalDefinitions());
  });
});
