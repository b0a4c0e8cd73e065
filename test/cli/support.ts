import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../../shared/cli/client.ts';
import { main } from '../../shared/cli/main.ts';
import { type LocalStack, type LocalStackOptions, startLocalStack } from '../../shared/local/stack.ts';
import type { ScriptedFixture } from '../../shared/model/index.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { testDefinitions } from '../support/local-definitions.ts';
import { assertNoSfnRefusals } from '../support/sfn-refusals.ts';
import { createOwnTable as createOwnTableWithPrefix } from '../support/table.ts';

/** What one `wf` invocation printed and returned. */
export type WfResult = { code: number; stdout: string; stderr: string; lines: string[] };

/**
 * Runs `wf` in process, with only the environment given (never the developer's WF_* variables). `out`
 * receives stdout lines as they are printed (to follow a command that is still running).
 */
export async function wf(argv: string[], env: NodeJS.ProcessEnv = {}, out: string[] = []): Promise<WfResult> {
  const err: string[] = [];
  const code = await main(argv, { stdout: (text) => out.push(text), stderr: (text) => err.push(text), env });
  const stdout = out.join('\n');
  return { code, stdout, stderr: err.join('\n'), lines: stdout.split('\n') };
}

export type CliStack = {
  stack: LocalStack;
  client: ApiClient;
  dataDir: string;
  /** Notices and lines the stack printed (the local approval inbox on the terminal). */
  printed: string[];
  /** `wf` against this stack: `--url` and `--api-key` added; `out` receives stdout lines as printed. */
  wf(argv: string[], out?: string[]): Promise<WfResult>;
  /** Writes a workflow file into the data directory; returns its path. */
  file(name: string, text: string): string;
  stop(): Promise<void>;
};

const createOwnTable = () => createOwnTableWithPrefix('wf-cli');

/** A local stack for CLI tests: loopback only, any free port, no scheduler, quick retries. */
export async function startCliStack(
  fixtures: ScriptedFixture[],
  more: Partial<LocalStackOptions> = {},
): Promise<CliStack> {
  const { endpoint, tableName } = await createOwnTable();
  const dataDir = await mkdtemp(join(tmpdir(), 'wf-cli-'));
  const printed: string[] = [];
  const stack = await startLocalStack({
    dynamodbEndpoint: endpoint,
    tableName,
    port: 0,
    dataDir,
    fixtures,
    schedulerIntervalMs: 0,
    retryIntervalMs: 20,
    print: (text) => printed.push(text),
    definitions: testDefinitions(),
    ...more,
  });
  const client = new ApiClient(stack.url, { kind: 'api-key', apiKey: stack.apiKey });
  return {
    stack,
    client,
    dataDir,
    printed,
    wf: (argv, out) => wf([...argv, '--url', stack.url, '--api-key', stack.apiKey], {}, out),
    file(name, text) {
      const path = join(dataDir, name);
      writeFileSync(path, text);
      return path;
    },
    async stop() {
      await stack.stop();
      await rm(dataDir, { recursive: true, force: true });
      assertNoSfnRefusals(stack);
    },
  };
}

/** Polls until `check` returns a value, or fails naming `what` after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The run once it is terminal and, when done, delivered (its audit chain then no longer grows). */
export function settledRun(client: ApiClient, runId: string): Promise<Run> {
  return eventually(`run ${runId} to settle`, async () => {
    const { run } = await client.get<{ run: Run }>(`/v1/runs/${runId}`);
    const terminal = ['done', 'failed', 'denied', 'cancelled'].includes(run.status);
    return terminal && (run.status !== 'done' || run.delivery) ? run : undefined;
  });
}

/** The runs of one workflow (newest first). */
export async function runsOf(client: ApiClient, workflowId: string): Promise<Run[]> {
  return (await client.get<{ items: Run[] }>(`/v1/runs?workflowId=${workflowId}&limit=100`)).items;
}
