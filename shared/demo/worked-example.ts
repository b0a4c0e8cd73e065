/**
 * The worked example: "Every morning, summarize the newsfeed list and post it to my site."
 * Brings up the local stack, a newsfeed server and a "my site" server, applies the example workflow, starts
 * a run on demand, prints progress, pauses for approval (a human click, or the same POST when unattended),
 * and checks the end: one post received, the run done, its cost, and a verified audit chain.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ApiClient } from '../cli/client.ts';
import { applyWorkflow } from '../cli/commands.ts';
import { watchRun } from '../cli/watch.ts';
import type { Usage } from '../core/ports.ts';
import { ensureLocalFiles, ensureLocalSecret, localFiles } from '../local/files.ts';
import { type LocalStackOptions, startLocalStack } from '../local/stack.ts';
import type { ScriptedFixture } from '../model/index.ts';
import { type RunAuditPage, readRunAudit } from '../runs/audit-reader.ts';
import { isAgentDefinition } from '../schemas/any-workflow.ts';
import type { Run } from '../schemas/run.ts';
import { loadWorkflowText } from '../workflow-file/index.ts';
import { decideThroughPage } from './approve.ts';
import { startFeedServer } from './feeds.ts';
import { startSiteServer } from './site.ts';

export const WORKFLOW_FILE = fileURLToPath(
  new URL('../../examples/morning-news.workflow.yaml', import.meta.url),
);
export const SITE_TOKEN_SECRET = 'wf/local/morning-news/site-token';
/** The ports the example workflow file and its fixture name for the newsfeed list and "my site". */
export const EXAMPLE_FEED_PORT = 8701;
export const EXAMPLE_SITE_PORT = 8702;
/** How long to wait for the approval notice once the run is parked. */
const NOTICE_WAIT_MS = 30_000;

/** Every scripted fixture under examples/fixtures/, its text passed through `rewrite` first. */
function exampleFixtures(rewrite: (text: string) => string): ScriptedFixture[] {
  const dir = fileURLToPath(new URL('../../examples/fixtures/', import.meta.url));
  return readdirSync(dir)
    .filter((name) => name.endsWith('.fixture.json'))
    .map((name) => JSON.parse(rewrite(readFileSync(join(dir, name), 'utf8'))) as ScriptedFixture);
}

export type WorkedExampleOptions = {
  autoApprove: boolean;
  anthropicApiKey?: string;
  dataDir?: string;
  /** Default 8701 and 8702, as the example files say; any other (0: a free one) rewrites them for this run. */
  feedPort?: number;
  sitePort?: number;
  print: (line: string) => void;
  /** Lets a test (or a browser) act on the link instead of the built-in unattended POST. */
  onApprovalLink?: (link: string) => void | Promise<void>;
  /** The stack's state machines, when the caller synthesized them already (`definitions` of the local stack). */
  definitions?: LocalStackOptions['definitions'];
};

export type WorkedExampleResult = {
  run: Run;
  posts: number;
  auditVerified: boolean;
  link: string | undefined;
  /** Usage of each model call, in order (from the run's audit entries). */
  modelCalls: Usage[];
  ok: boolean;
};

/** The workflow's approval timeout: how long its approval links stay valid. */
function approvalTimeoutSeconds(file: string): number {
  const definition = loadWorkflowText(readFileSync(file, 'utf8'), file);
  return isAgentDefinition(definition) ? (definition.approvals?.timeoutSeconds ?? 3600) : 3600;
}

export async function runWorkedExample(options: WorkedExampleOptions): Promise<WorkedExampleResult> {
  const { print } = options;
  const files = localFiles(options.dataDir ?? '.local/demo');
  ensureLocalFiles(files);
  const token = ensureLocalSecret(files, SITE_TOKEN_SECRET, () => randomBytes(24).toString('base64url'));
  const feeds = await startFeedServer(options.feedPort ?? EXAMPLE_FEED_PORT);
  const site = await startSiteServer({
    port: options.sitePort ?? EXAMPLE_SITE_PORT,
    token,
    onPost: (post) => print(`my site: received post "${post.title}" (${post.body.split('\n').length} lines)`),
  });
  // The example's files name 127.0.0.1:8701/8702; on other ports (e.g. 0 for free ones) both are rewritten.
  const moved = feeds.port !== EXAMPLE_FEED_PORT || site.port !== EXAMPLE_SITE_PORT;
  const onPorts = (text: string) =>
    text
      .replaceAll(`127.0.0.1:${EXAMPLE_FEED_PORT}`, `127.0.0.1:${feeds.port}`)
      .replaceAll(`127.0.0.1:${EXAMPLE_SITE_PORT}`, `127.0.0.1:${site.port}`);
  const workflowFile = moved ? join(files.dir, 'morning-news.workflow.yaml') : WORKFLOW_FILE;
  if (moved) writeFileSync(workflowFile, onPorts(readFileSync(WORKFLOW_FILE, 'utf8')));
  const stack = await startLocalStack({
    dataDir: files.dir,
    port: 0,
    allowLoopbackPorts: [feeds.port, site.port],
    schedulerIntervalMs: 0,
    ...(moved ? { fixtures: exampleFixtures(onPorts) } : {}),
    ...(options.anthropicApiKey ? { anthropicApiKey: options.anthropicApiKey } : {}),
    ...(options.definitions ? { definitions: options.definitions } : {}),
    print: () => undefined,
  });
  try {
    print(
      `local stack up on ${stack.url} (model: ${options.anthropicApiKey ? 'Claude' : 'scripted fixture examples/fixtures/morning-news.fixture.json'})`,
    );
    print(`newsfeed list on ${feeds.url}, "my site" on ${site.url}`);
    const client = new ApiClient(stack.url, { kind: 'api-key', apiKey: stack.apiKey });
    const out = { json: false, line: print, data: () => undefined };
    if ((await applyWorkflow(client, workflowFile, out)) !== 0)
      throw new Error('the example workflow did not apply');
    const { workflowId } = (
      await client.get<{ items: { workflowId: string; name: string }[] }>('/v1/workflows?limit=100')
    ).items.find((workflow) => workflow.name === 'morning-news')!;
    const { body } = await client.post<{ run: Run }>(
      `/v1/workflows/${workflowId}/runs`,
      { input: { note: 'started on demand for the demo' } },
      {
        headers: { 'Idempotency-Key': randomUUID() },
      },
    );
    print(
      `run ${body.run.runId} started (the workflow's schedule trigger is cron(0 7 * * ? *) Europe/Berlin; this one is on demand)`,
    );
    let link: string | undefined;
    const run = await watchRun(client, body.run.runId, {
      print: (line) => print(`  ${line}`),
      // The demo's stack is this process: polling it costs nothing, and the approval shows at once.
      intervalMs: 400,
      // As long as the approval link is valid (the workflow's approval timeout), and a minute for the rest.
      timeoutMs: (approvalTimeoutSeconds(workflowFile) + 60) * 1000,
      onAwaitingApproval: async () => {
        // The run parks first; the RequestApproval step sends the link a moment later.
        const issued = () => stack.inbox.notices().find((candidate) => candidate.runId === body.run.runId);
        for (let waited = 0; !issued() && waited < NOTICE_WAIT_MS; waited += 100) await sleep(100);
        const notice = issued();
        link = notice?.url;
        if (!link) throw new Error('the run waits for approval but no approval link was issued');
        print('');
        print(`APPROVAL NEEDED: ${notice?.tool} wants to publish to the site.`);
        print(`Open this link to review the exact post and approve or deny it:\n  ${link}`);
        print('');
        if (options.onApprovalLink) return options.onApprovalLink(link);
        if (options.autoApprove) {
          const decided = await decideThroughPage(link, 'approve');
          print(
            `decision: approved through the approval page (HTTP ${decided.status}), as a human click would`,
          );
        } else {
          print(
            `waiting for your decision in the browser until the link expires (${notice?.expiresAt ?? 'see the page'}); Ctrl-C stops (run with --auto-approve to approve unattended)`,
          );
        }
      },
    });
    const audit = await readRunAudit(run.runId, (path) => client.get<RunAuditPage>(path));
    const modelCalls = audit.entries.flatMap((entry) =>
      entry.type === 'model_call' && entry.data.usage ? [entry.data.usage as Usage] : [],
    );
    print('');
    print(`run ${run.runId}: ${run.status} (${run.stopReason}) after ${run.modelCalls} model call(s)`);
    print(`result: ${run.result?.text ?? '(none)'}`);
    print(`posts received by my site: ${site.posts.length}`);
    print(
      `cost: $${run.costUsd.toFixed(6)} (${run.usage.inputTokens} input, ${run.usage.outputTokens} output, ${run.usage.cacheReadInputTokens} cache-read, ${run.usage.cacheCreationInputTokens} cache-write tokens)`,
    );
    print(
      audit.verification.ok
        ? `audit chain verified (${audit.verification.count} entries)`
        : `audit chain BROKEN: ${audit.verification.message}`,
    );
    const ok = run.status === 'done' && site.posts.length === 1 && audit.verification.ok;
    return { run, posts: site.posts.length, auditVerified: audit.verification.ok, link, modelCalls, ok };
  } finally {
    await stack.stop();
    await site.close();
    await feeds.close();
  }
}
