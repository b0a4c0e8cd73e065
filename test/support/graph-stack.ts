/**
 * A local stack for graph e2e tests, one per test file: its own table and data directory, a fake payments
 * server on loopback that the egress guard may reach (and that counts for an internal host, so its POSTs are no
 * external publish), and the in-memory human tasks whose `submit` answers the wait (or the real service). `graphStackForSuite()`
 * starts it in `beforeAll` and stops everything in `afterAll`. `restart()` stops the local stack and starts it
 * again on the same table and data directory (a process that went away, then came back: it resumes the runs it
 * finds), with the payments server kept.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type FakePayments, startFakePayments } from '../../shared/demo/fake-payments.ts';
import type { LocalStackOptions } from '../../shared/local/stack.ts';
import { createOwnTable, type E2eStack, removeDir, startE2eStack, tempDataDir } from '../e2e/support.ts';

export type GraphStack = {
  /** The stack now running (a new one after each `restart`). */
  readonly e2e: E2eStack;
  payments: FakePayments;
  /**
   * Stops the local stack, runs `meanwhile` (moving the stack's clock while nothing runs), then starts it again
   * with the same options, table and data directory; answers the new one (also `e2e` from now on).
   */
  restart(meanwhile?: () => void | Promise<void>): Promise<E2eStack>;
  stop(): Promise<void>;
};
export type GraphStackOptions = Omit<
  LocalStackOptions,
  'dynamodbEndpoint' | 'tableName' | 'dataDir' | 'humanTasks'
> & {
  /**
   * The in-memory stand-in by default; `'service'`: the real human-task service (task records, signed links,
   * the form pages), as `npm start` runs it.
   */
  humanTasks?: LocalStackOptions['humanTasks'] | 'service';
  /** Owners' API keys, written to `<dataDir>/api-keys.json` before the stack starts. */
  apiKeys?: Record<string, { owner: string; client?: string }>;
};

export async function startGraphStack(options: GraphStackOptions = {}): Promise<GraphStack> {
  const { humanTasks = 'in-memory', apiKeys, ...stackOptions } = options;
  const payments = await startFakePayments();
  const dataDir = await tempDataDir();
  let current: E2eStack | undefined;
  const stop = async () => {
    // The stack's stop fails on a Step Functions refusal (e2e/support.ts): the rest is closed all the same.
    try {
      await current?.stack.stop();
    } finally {
      current = undefined;
      await payments.close();
      await removeDir(dataDir);
    }
  };
  try {
    if (apiKeys) await writeFile(join(dataDir, 'api-keys.json'), JSON.stringify({ keys: apiKeys }));
    const table = await createOwnTable();
    const start = () =>
      startE2eStack(table, {
        dataDir,
        allowLoopbackPorts: [payments.port],
        internalHosts: ['127.0.0.1'],
        ...(humanTasks === 'service' ? {} : { humanTasks }),
        ...stackOptions,
      });
    current = await start();
    return {
      get e2e() {
        if (!current) throw new Error('the graph stack is stopped');
        return current;
      },
      payments,
      async restart(meanwhile) {
        await current?.stack.stop();
        current = undefined;
        await meanwhile?.();
        current = await start();
        return current;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The suite's graph stack, started before its tests and stopped after them; read it inside tests only. */
export function graphStackForSuite(options: GraphStackOptions = {}): Omit<GraphStack, 'stop'> {
  let started: GraphStack | undefined;
  beforeAll(async () => {
    started = await startGraphStack(options);
  });
  afterAll(async () => {
    await started?.stop();
  });
  const get = () => {
    if (!started) throw new Error('the graph stack is read before beforeAll started it');
    return started;
  };
  return {
    get e2e() {
      return get().e2e;
    },
    get payments() {
      return get().payments;
    },
    restart: (meanwhile) => get().restart(meanwhile),
  };
}
