/**
 * The local stack: the whole runtime on one machine, no AWS account.
 * - DynamoDB Local (data on disk under the data directory), the same table definition as the CDK stack;
 * - the CDK-synthesized state machine run by aws-local-stepfunctions, its Task states calling the same
 *   handler modules (functions/) in process, and a local Step Functions endpoint for the SDK calls
 *   (StartExecution, SendTaskSuccess, …), so those code paths are the AWS ones;
 * - the HTTP API and the approval pages on a local port, with `/local/inbox` and `/local/events`;
 * - the scripted Messages-API server (or real Claude when an API key is given), through the real SDK;
 * - a local scheduler for schedule triggers; on start, finished runs a crash left undelivered are delivered and
 *   non-terminal runs are resumed (docs/local-stack.md).
 */

import { ensureLocalSigningKey } from '../audit-signing/index.ts';
import { systemClock } from '../runtime/clock.ts';
import { ensureLocalFiles, localFiles } from './files.ts';
import { listenLocal, localApp } from './http-local.ts';
import { startLocalMachines } from './machines.ts';
import { startLocalModel } from './model-local.ts';
import { recoverAndSchedule } from './recovery.ts';
import { localServices } from './services-local.ts';
import type { LocalStack, LocalStackOptions } from './stack-options.ts';
import { Closers } from './stack-parts.ts';
import { startLocalStore } from './store-local.ts';

export type { LocalStack, LocalStackOptions } from './stack-options.ts';

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const print = options.print ?? ((text: string) => process.stdout.write(`${text}\n`));
  const clock = options.clock ?? systemClock;
  const files = localFiles(options.dataDir ?? '.local');
  const { apiKey, owner } = ensureLocalFiles(files);
  // The audit signing key (created on first start, private key 0600): signs every owner's chain heads.
  const auditKey = ensureLocalSigningKey(files.dir);
  const closers = new Closers();
  const stop = () => closers.closeAll();
  try {
    const store = await startLocalStore(options, files, auditKey.privateKey, closers);
    const { model, modelUrl, recorder } = await startLocalModel(options, closers);
    const { port, attach } = await listenLocal(options.port ?? 8787, closers);
    const url = `http://127.0.0.1:${port}`;
    const services = await localServices(options, { store, clock, port, url, print, files });
    const machines = await startLocalMachines(options, services, model, files, closers);
    const app = localApp({
      options,
      services,
      machines,
      files,
      auditPublicKeyPath: auditKey.publicKey,
      recorder,
    });
    attach(app);
    const { scheduler, delivered, resumed } = await recoverAndSchedule(options, services, machines, closers);
    return {
      url,
      apiKey,
      jobs: machines.jobs,
      owner,
      files,
      store,
      sfn: machines.sfn,
      graphSfn: machines.graphSfn,
      externalSfn: machines.externalSfn,
      humanTasks: machines.humanTasks,
      executions: machines.executions,
      sfnRefusals: machines.sfnRefusals,
      inbox: services.inbox,
      scheduler,
      modelUrl,
      resumed,
      delivered,
      routes: [
        ...new Set(app.routes.filter((route) => route.method !== 'ALL').map((r) => `${r.method} ${r.path}`)),
      ],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
