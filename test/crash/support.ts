/**
 * Crash-test support: the local stack in a child process (test/crash/stack-process.ts) that a test kills with
 * SIGKILL, whole (its process group: the stack and its DynamoDB Local), and a proxy in front of the scripted
 * model server that can kill the stack after the model answered and before the stack heard the answer.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../../shared/cli/client.ts';
import type { SfnRefusal } from '../../shared/local/sfn/index.ts';

export type StackLife = {
  url: string;
  apiKey: string;
  client: ApiClient;
  resumed: string[];
  delivered: string[];
  /** SIGKILL of the stack's process group; synchronous, so a hook can kill before it answers. */
  kill(): void;
  exited: Promise<void>;
  /** The child's stderr (last 20 KB), for a failure's message. */
  stderr(): string;
  /**
   * The Step Functions requests this life's endpoint refused as AWS would (test/crash/stack-process.ts prints
   * each as it happens, so a killed life's are kept): a test that passes on a refused call would fail on AWS.
   */
  sfnRefusals(): SfnRefusal[];
};

export type StackConfig = {
  dataDir: string;
  port: number;
  scriptedModelUrl: string;
  allowLoopbackPorts: number[];
  /** Hosts inside the deployment: the receivers' unsafe requests need no approval there. */
  internalHosts: string[];
  /** A file holding the state machines to run (`testDefinitions()` as JSON). */
  definitionsFile: string;
};

/**
 * A stack process spawned and warming (its modules imported and its state machines read, no data touched:
 * test/crash/stack-process.ts), whose stack starts on the data at `start()`. A test spawns the next
 * life's process while the current life runs, so each restart pays only the stack's start (DynamoDB Local's,
 * and the recovery), as a restarted machine whose program is already loaded would.
 */
export type WarmStackProcess = {
  /** Starts the stack (after the process warmed) and resolves once it serves. */
  start(): Promise<StackLife>;
  /** SIGKILL of the process group, started or not. */
  kill(): void;
};

export function warmStackProcess(config: StackConfig): WarmStackProcess {
  const child: ChildProcess = spawn(process.execPath, ['test/crash/stack-process.ts'], {
    // Its own process group, so one kill reaches the stack and the DynamoDB Local it spawned.
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      // Node's on-disk compile cache (https://nodejs.org/api/module.html#module-compile-cache): every life after
      // the first loads the stack's modules already stripped of types and compiled (its import: 2.6 s of CPU
      // without, 1.75 s with, measured on the loaded 2-core machine), and the kill test starts nine lives.
      NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'wf-test-compile-cache'),
      WF_CRASH_STACK: JSON.stringify(config),
    },
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let dead = false;
  const kill = () => {
    if (dead || child.pid === undefined) return;
    dead = true;
    process.kill(-child.pid, 'SIGKILL');
  };
  let out = '';
  const onOutput = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const check of onOutput) check();
  });
  /** The first whole line of the child's stdout that starts with `prefix`; rejects if the child exits first. */
  const line = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = out
          .split('\n')
          .slice(0, -1)
          .find((candidate) => candidate.startsWith(prefix));
        if (found === undefined) return;
        onOutput.delete(check);
        resolve(found);
      };
      onOutput.add(check);
      check();
      void exited.then(() =>
        reject(new Error(`the stack process exited before it printed ${prefix}:\n${stderr}`)),
      );
    });
  const start = async (): Promise<StackLife> => {
    await line('WARM');
    child.stdin?.end('start\n');
    const ready = JSON.parse((await line('READY ')).slice('READY '.length)) as {
      url: string;
      apiKey: string;
      resumed: string[];
      delivered: string[];
    };
    return {
      ...ready,
      client: new ApiClient(ready.url, { kind: 'api-key', apiKey: ready.apiKey }),
      kill,
      exited,
      stderr: () => stderr,
      sfnRefusals: () =>
        out
          .split('\n')
          .slice(0, -1)
          .filter((each) => each.startsWith(REFUSAL_LINE))
          .map((each) => JSON.parse(each.slice(REFUSAL_LINE.length)) as SfnRefusal),
    };
  };
  return { start, kill };
}

const REFUSAL_LINE = 'SFN-REFUSAL ';

/** Spawns a stack process and starts its stack (`warmStackProcess` then `start`). */
export function startStackProcess(config: StackConfig): Promise<StackLife> {
  return warmStackProcess(config).start();
}

/**
 * A loopback proxy to the scripted model server: forwards each request, and calls `onAnswered` with the
 * fixture and the upstream's answer before relaying it (a hook that kills the stack there leaves a call made
 * and paid for whose answer the stack never got).
 */
export async function modelProxy(
  upstream: string,
  onAnswered: (fixture: string) => void,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
        headers[name] = value;
    try {
      const answer = await fetch(new URL(req.url ?? '/', upstream), {
        method: req.method ?? 'POST',
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : null,
      });
      const body = Buffer.from(await answer.arrayBuffer());
      onAnswered(headers['x-scripted-fixture'] ?? '');
      const relayed: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(name))
          relayed[name] = value;
      });
      res.writeHead(answer.status, relayed);
      res.end(body);
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The approval links in the local inbox page (the API key signs the request in). */
export async function inboxLinks(life: StackLife): Promise<string[]> {
  const response = await fetch(`${life.url}/local/inbox`, {
    headers: { authorization: `Bearer ${life.apiKey}` },
  });
  const page = await response.text();
  return [...page.matchAll(/href="([^"]*\/approvals\/[^"]+)"/g)].map((match) =>
    match[1]!.replaceAll('&amp;', '&'),
  );
}
