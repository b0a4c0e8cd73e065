/**
 * `wf grant …` (owners: delegation grants) and `wf job …` (clients: submit, show, list, cancel), over the
 * HTTP API. A grant file is the `grant` object of docs/jobs.md, in JSON or YAML.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse as parseYaml } from 'yaml';
import type { GrantView, JobView, SubmitJobResult } from '../jobs/schemas.ts';
import type { ApiClient } from './client.ts';
import { type Output, UsageError } from './commands.ts';
import { fixedPoll, POLL_BACKOFF, pollBackoff } from './poll-backoff.ts';

const enc = encodeURIComponent;

function readGrantFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    // A file that cannot be read is an error (exit 1), as for `wf workflow apply`, not a usage mistake.
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  return /\.ya?ml$/.test(file) ? parseYaml(text) : JSON.parse(text);
}

const grantLine = (g: GrantView) =>
  `${g.clientId}  v${g.version}${g.revoked ? '  REVOKED' : ''}  actions: ${g.grant.actions.join(', ') || '(none)'}  models: ${g.grant.models.join(', ')}  concurrency ${g.grant.concurrency}, queue ${g.grant.maxQueued}  scopes: ${g.grant.scopes.join(' ')}  (by ${g.updatedBy}, ${g.updatedAt})`;

/** `wf grant create|narrow|widen CLIENT -f FILE`, `revoke|show|history CLIENT`, `list`. */
export async function grantCommand(
  client: ApiClient,
  verb: string,
  args: { clientId?: string | undefined; file?: string | undefined; expectedVersion?: string | undefined },
  out: Output,
): Promise<number> {
  const clientId = () => {
    if (!args.clientId) throw new UsageError('missing CLIENT (the client id to grant)');
    return args.clientId;
  };
  const file = () => {
    if (!args.file) throw new UsageError('missing -f GRANT_FILE');
    return readGrantFile(args.file);
  };
  const show = (grant: GrantView) => {
    out.line(grantLine(grant));
    out.data({ grant });
    return 0;
  };
  switch (verb) {
    case 'create': {
      const id = clientId();
      return show(
        (await client.post<{ grant: GrantView }>('/v1/grants', { clientId: id, grant: file() })).body.grant,
      );
    }
    case 'narrow':
    case 'widen': {
      const id = clientId();
      const expected = args.expectedVersion;
      if (expected !== undefined && !/^\d+$/.test(expected))
        throw new UsageError('--expected-version must be a number');
      const body = {
        grant: file(),
        ...(expected !== undefined ? { expectedVersion: Number(expected) } : {}),
      };
      return show(
        (await client.post<{ grant: GrantView }>(`/v1/grants/${enc(id)}/${verb}`, body)).body.grant,
      );
    }
    case 'revoke':
      return show(
        (await client.post<{ grant: GrantView }>(`/v1/grants/${enc(clientId())}/revoke`)).body.grant,
      );
    case 'show':
      return show((await client.get<{ grant: GrantView }>(`/v1/grants/${enc(clientId())}`)).grant);
    case 'history': {
      const { versions } = await client.get<{ versions: GrantView[] }>(
        `/v1/grants/${enc(clientId())}/history`,
      );
      for (const version of versions) out.line(grantLine(version));
      out.data({ versions });
      return 0;
    }
    case 'list': {
      const { grants } = await client.get<{ grants: GrantView[] }>('/v1/grants');
      for (const grant of grants) out.line(grantLine(grant));
      if (grants.length === 0) out.line('no grants');
      out.data({ grants });
      return 0;
    }
    default:
      throw new UsageError(`unknown command 'grant ${verb}'`);
  }
}

const jobLine = (job: JobView) =>
  `${job.jobId}  ${job.status}${job.queuePosition ? ` (queue position ${job.queuePosition})` : ''}${job.stopReason ? `  stop: ${job.stopReason}` : ''}  turns ${job.turns}  $${job.costUsd.toFixed(4)}  attempts ${job.attempts.made}/${job.attempts.max}${job.retry ? `  retry (${job.retry.disposition}) at ${job.retry.nextAttemptAt}` : ''}`;

function printJob(job: JobView, out: Output) {
  out.line(jobLine(job));
  if (job.result) out.line(job.result.text);
  if (job.error) out.line(`error: ${job.error.name}: ${job.error.message}`);
}

const ENDED = ['done', 'failed', 'denied', 'cancelled'];

/** `wf job submit|show|list|cancel`, as a client (its API key or token). Exit 3 when a waited job did not end done. */
export async function jobCommand(
  client: ApiClient,
  verb: string,
  args: {
    jobId?: string | undefined;
    prompt?: string | undefined;
    tools?: string | undefined;
    model?: string | undefined;
    maxTurns?: string | undefined;
    dryRun?: boolean;
    wait?: boolean;
    /** `--interval`: a fixed wait between `--wait`'s polls. */
    intervalMs?: number | undefined;
    idempotencyKey?: string | undefined;
    status?: string | undefined;
  },
  out: Output,
): Promise<number> {
  const jobId = () => {
    if (!args.jobId) throw new UsageError('missing JOB (a job id, job_…)');
    return args.jobId;
  };
  switch (verb) {
    case 'submit': {
      if (!args.prompt) throw new UsageError('missing --prompt TEXT');
      if (args.maxTurns !== undefined && !/^\d+$/.test(args.maxTurns))
        throw new UsageError('--max-turns must be a number');
      const body = {
        prompt: args.prompt,
        ...(args.tools !== undefined ? { tools: args.tools.split(',').filter(Boolean) } : {}),
        ...(args.model ? { model: args.model } : {}),
        ...(args.maxTurns !== undefined ? { maxTurns: Number(args.maxTurns) } : {}),
        ...(args.dryRun ? { dryRun: true } : {}),
      };
      const headers = args.idempotencyKey ? { 'Idempotency-Key': args.idempotencyKey } : undefined;
      const result = (await client.post<SubmitJobResult>('/v1/jobs', body, headers ? { headers } : {})).body;
      if ('dryRun' in result) {
        const c = result.constraints;
        out.line(
          `dry run: model ${c.model}, ${c.maxTurns} turns, $${c.budget.maxUsdPerJob} per job${c.budget.maxUsdPerDay ? `, $${c.budget.maxUsdPerDay} per day` : ''}, tools: ${c.tools.map((t) => `${t.name} (${t.gate})`).join(', ') || '(none)'}`,
        );
        out.data(result);
        return 0;
      }
      let job = result.job;
      out.line(`${result.coalesced ? 'coalesced with' : 'submitted'} ${jobLine(job)}`);
      if (!args.wait) {
        out.data(result);
        return 0;
      }
      const read = async () => (await client.get<{ job: JobView }>(`/v1/jobs/${enc(job.jobId)}`)).job;
      // The submit answer never carries a result (docs/jobs.md): a job that already ended is read once for it.
      if (ENDED.includes(job.status)) job = await read();
      // Polled every second while the job moves, backing off to 10 s while it waits (poll-backoff.ts).
      const backoff =
        args.intervalMs === undefined ? pollBackoff(POLL_BACKOFF.list) : fixedPoll(args.intervalMs);
      let changed = true;
      while (!ENDED.includes(job.status)) {
        await sleep(backoff.next(changed));
        const before = job;
        job = await read();
        changed = job.status !== before.status || job.turns !== before.turns;
      }
      printJob(job, out);
      out.data({ job, coalesced: result.coalesced });
      return job.status === 'done' ? 0 : 3;
    }
    case 'show': {
      const { job } = await client.get<{ job: JobView }>(`/v1/jobs/${enc(jobId())}`);
      printJob(job, out);
      out.data({ job });
      return 0;
    }
    case 'list': {
      const query = args.status ? `?status=${enc(args.status)}` : '';
      const page = await client.get<{ jobs: JobView[]; nextToken?: string }>(`/v1/jobs${query}`);
      for (const job of page.jobs) out.line(jobLine(job));
      if (page.jobs.length === 0) out.line('no jobs');
      out.data(page);
      return 0;
    }
    case 'cancel': {
      const result = await client.request<{ job: JobView; stopped: string }>(
        'DELETE',
        `/v1/jobs/${enc(jobId())}`,
      );
      out.line(`${result.body.job.jobId}: stopped ${result.body.stopped}; now ${result.body.job.status}`);
      out.data(result.body);
      return 0;
    }
    default:
      throw new UsageError(`unknown command 'job ${verb}'`);
  }
}
