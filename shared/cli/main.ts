/** `wf`: the runtime's command line. Parses arguments, runs one command, maps errors to exit statuses. */
import { parseArgs } from 'node:util';
import { COST_USAGE, CostUsageError, costCommand } from '../cost/command.ts';
import { ownerKey, ownerSecretPrefix } from '../credentials/owner-key.ts';
import { DEFAULT_STACK_NAME, derivedCredentialPrefix } from '../credentials/stack-prefix.ts';
import { OwnerIdSchema } from '../schemas/common.ts';
import { auditPublicKeyPath, verifyOwnerAudit } from './audit-owner.ts';
import { ApiError } from './client.ts';
import { colourEnabled, colours } from './colour.ts';
import {
  applyWorkflow,
  listApprovals,
  listWorkflows,
  type Output,
  putEvent,
  showRun,
  showTranscript,
  startRunCommand,
  UsageError,
  verifyAudit,
  whoami,
} from './commands.ts';
import { clientFrom, localDataDir } from './config.ts';
import { consoleCommand } from './console-command.ts';
import { EXTRA_COMMANDS } from './extra-commands.ts';
import { runOperation, showSteps } from './graph-runs.ts';
import { helpFor } from './help.ts';
import { grantCommand, jobCommand } from './jobs.ts';
import { localUp } from './local-up.ts';
import { listReceipts } from './receipts.ts';
import { recordName, saveRecording } from './record.ts';
import { applyDraft, publishWorkflow } from './workflow-versions.ts';

export const USAGE = `wf: the LLM-workflow runtime's command line

  wf local up [--port 8787] [--data-dir .local] [--fixtures DIR]   run the whole runtime on this machine
  wf console --aws --url API_URL [--region R] [--port 8788]   the web console for a deployed stack, on this machine
  wf workflow apply -f FILE [--draft]                create a workflow, or add a version when FILE changed
                                                     (--draft: save it as the draft, not run until published)
  wf workflow publish WORKFLOW                       publish the open draft: new runs and triggers use it
  wf workflow list
  wf workflow validate -f FILE                       check FILE against the schema (offline)
  wf workflow diff -f FILE                           what applying FILE would change
  wf workflow enable WORKFLOW                        its trigger starts runs again
  wf workflow disable WORKFLOW                       no new runs
  wf workflow delete WORKFLOW                        delete it (the name is free again)
  wf run start WORKFLOW [--input JSON] [--wait] [--idempotency-key KEY] [--record DIR [--record-name NAME]]
  wf run list [--workflow W] [--status S] [--watch]  runs, newest first; --watch follows them
                                                     (--interval SECONDS: poll --wait/--watch at a fixed pace)
  wf run show RUN
  wf run transcript RUN
  wf run steps RUN                                   a graph run's steps: status, attempt, error
  wf run pause RUN                                   graph runs: no new step starts; running ones finish
  wf run resume RUN                                  graph runs: go on after a pause
  wf run retry-step RUN STEP                         graph runs: run a failed step again (its next attempt)
  wf run cancel RUN                                  cancel a run (a graph run's child runs and human tasks too)
  wf run receipts RUN                                each side effect, its status and what a duplicate does
  wf audit verify RUN | --owner [--public-key FILE] a run's chain | the owner's chains and signed heads
  wf audit show RUN                                  a run's audit chain, entry by entry
  wf fixture init WORKFLOW_FILE [--out FILE] [--force]   a starting scripted-model fixture (offline runs)
  wf approvals list [--status pending|approved|denied|expired|undeliverable]
  wf events put --source S --detail-type T --detail JSON [--id ID]   (local stack)
  wf grant create|narrow|widen CLIENT -f GRANT_FILE [--expected-version N]   delegate jobs to a client
  wf grant revoke|show|history CLIENT | wf grant list
  wf job submit --prompt TEXT [--tools a,b] [--model M] [--max-turns N] [--dry-run] [--wait]
                [--idempotency-key KEY]              (as a client: its --api-key)
  wf job show JOB | wf job list [--status S] | wf job cancel JOB
  wf owner-key OWNER [--stack NAME]                  the key of OWNER in credential secret names and tags
  wf whoami                                          your owner, principal, and credential secret prefix
  ${COST_USAGE}

Options: --url URL (default $WF_URL or http://127.0.0.1:8787), --api-key KEY (default $WF_API_KEY or
the data dir's api-keys.json; --data-dir DIR, default $WF_DATA_DIR or .local), --aws [--region R] to sign requests to a deployed stack with AWS credentials (default $WF_AUTH=aws),
--request-timeout S for each request (default $WF_REQUEST_TIMEOUT or 60), --json for machine-readable output; 'wf help COMMAND' or 'wf COMMAND --help' for a command's help. Exit status: 0 ok, 1 error, 2 usage, 3 run ended not done, 4 audit broken.`;

const OPTIONS = {
  url: { type: 'string' },
  'api-key': { type: 'string' },
  aws: { type: 'boolean' },
  region: { type: 'string' },
  json: { type: 'boolean' },
  file: { type: 'string', short: 'f' },
  draft: { type: 'boolean' },
  input: { type: 'string' },
  wait: { type: 'boolean' },
  'idempotency-key': { type: 'string' },
  status: { type: 'string' },
  source: { type: 'string' },
  'detail-type': { type: 'string' },
  detail: { type: 'string' },
  id: { type: 'string' },
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  owner: { type: 'boolean' },
  'public-key': { type: 'string' },
  'expected-version': { type: 'string' },
  prompt: { type: 'string' },
  tools: { type: 'string' },
  model: { type: 'string' },
  'max-turns': { type: 'string' },
  'dry-run': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  // issue 17 (docs/cli.md): see extra-commands.ts
  fixtures: { type: 'string' },
  record: { type: 'string' },
  'record-name': { type: 'string' },
  workflow: { type: 'string' },
  watch: { type: 'boolean' },
  out: { type: 'string' },
  force: { type: 'boolean' },
  stack: { type: 'string' },
  'request-timeout': { type: 'string' },
  interval: { type: 'string' },
} as const;

/**
 * `--interval SECONDS`: a fixed wait between the polls of `run start --wait`, `run list --watch` and
 * `job submit --wait`, instead of their backoff (shared/cli/poll-backoff.ts).
 */
export function pollIntervalMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds < 0.1 || seconds > 3600)
    throw new UsageError(`--interval must be a number of seconds from 0.1 to 3600, got '${value}'`);
  return Math.round(seconds * 1000);
}

export type Io = {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** stdout is a terminal: colour (unless NO_COLOR) and `--watch` redraws. */
  isTTY?: boolean;
  /** Stops a command that runs until interrupted (`run list --watch`). */
  signal?: AbortSignal;
};

/** `wf owner-key OWNER`: prints ownerKey(OWNER) (offline; the same function the runtime uses). */
function ownerKeyCommand(owner: string | undefined, stack: string | undefined, out: Output): number {
  if (!owner) throw new UsageError('missing OWNER');
  if (!OwnerIdSchema.safeParse(owner).success)
    throw new UsageError(`'${owner}' is not an owner id: letters, digits and . _ : @ + = | / - only`);
  // Stack names: letters, digits and hyphens, starting with a letter, at most 128 characters
  // (https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_CreateStack.html).
  const stackName = stack ?? DEFAULT_STACK_NAME;
  if (!/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(stackName))
    throw new UsageError(`--stack '${stackName}' is not a stack name: a letter, then letters, digits and -`);
  const key = ownerKey(owner);
  out.line(key);
  out.data({
    owner,
    ownerKey: key,
    stack: stackName,
    secretPrefix: ownerSecretPrefix(derivedCredentialPrefix(stackName), owner),
  });
  return 0;
}

/** `--port`: a TCP port number from 0 (any free port) to 65535, or a usage error naming `--port`. */
function portOf(value: string | undefined, example: number): number | undefined {
  if (value === undefined) return undefined;
  const port = /^\d{1,5}$/.test(value) ? Number(value) : -1;
  if (port < 0 || port > 65535)
    throw new UsageError(
      `--port '${value}' must be a port number from 0 (any free port) to 65535, e.g. ${example}`,
    );
  return port;
}

export async function main(argv: string[], io: Io): Promise<number> {
  // `wf cost` is offline and has its own flags (shared/cost/command.ts).
  if (argv[0] === 'cost')
    return costCommand(argv.slice(1), io.stdout).catch((error: Error) => {
      io.stderr(`wf: ${error.message}\n\n${COST_USAGE}`);
      return error instanceof CostUsageError || error.name === 'TypeError' ? 2 : 1;
    });
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    io.stderr(`wf: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [group, verb, arg] = positionals;
  // Per-command help (help.ts); a command without an entry gets the global usage.
  if (group === 'help' || (values.help && group)) {
    const words = group === 'help' ? positionals.slice(1, 3) : positionals.slice(0, 2);
    io.stdout(helpFor(words.join(' ')) ?? USAGE);
    return 0;
  }
  if (values.help || !group) {
    io.stdout(USAGE);
    return values.help ? 0 : 2;
  }
  const out: Output = {
    json: values.json === true,
    line: (text) => {
      if (!values.json) io.stdout(text);
    },
    data: (value) => {
      if (values.json) io.stdout(JSON.stringify(value, null, 2));
    },
  };
  try {
    if (group === 'owner-key') return ownerKeyCommand(verb, values.stack, out);
    if (group === 'local' && verb === 'up') {
      const port = portOf(values.port, 8787);
      return await localUp({
        ...(port !== undefined ? { port } : {}),
        dataDir: localDataDir(values['data-dir'], io.env),
        ...(values.fixtures ? { fixtures: values.fixtures } : {}),
        env: io.env,
        print: io.stdout,
      });
    }
    if (group === 'console') {
      const port = portOf(values.port, 8788);
      // The same defaults as every other command (docs/cli.md): --url from WF_URL, --aws from WF_AUTH=aws.
      return await consoleCommand({
        aws: values.aws === true || io.env.WF_AUTH === 'aws',
        url: values.url ?? io.env.WF_URL,
        ...(values.region ? { region: values.region } : {}),
        ...(values['request-timeout'] ? { requestTimeout: values['request-timeout'] } : {}),
        ...(port !== undefined ? { port } : {}),
        env: io.env,
        print: io.stdout,
        ...(io.signal ? { signal: io.signal } : {}),
      });
    }
    // Built on first use, after the command and its arguments are known to be right (a usage error is 2).
    const client = () =>
      clientFrom(
        {
          ...(values.url ? { url: values.url } : {}),
          ...(values['api-key'] ? { apiKey: values['api-key'] } : {}),
          ...(values.aws ? { aws: true } : {}),
          ...(values.region ? { region: values.region } : {}),
          ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
          ...(values['request-timeout'] ? { requestTimeout: values['request-timeout'] } : {}),
        },
        io.env,
      );
    const need = (value: string | undefined, what: string): string => {
      if (!value) throw new UsageError(`missing ${what}`);
      return value;
    };
    // `--interval` of the followers (run start --wait, run list --watch, job submit --wait), checked once.
    const intervalMs = pollIntervalMs(values.interval);
    if (group === 'grant')
      return await grantCommand(
        client(),
        need(verb, 'a grant command'),
        { clientId: arg, file: values.file, expectedVersion: values['expected-version'] },
        out,
      );
    if (group === 'job') {
      return await jobCommand(
        client(),
        need(verb, 'a job command'),
        {
          jobId: arg,
          prompt: values.prompt,
          tools: values.tools,
          model: values.model,
          maxTurns: values['max-turns'],
          dryRun: values['dry-run'] === true,
          wait: values.wait === true,
          idempotencyKey: values['idempotency-key'],
          status: values.status,
          intervalMs,
        },
        out,
      );
    }
    const command = `${group} ${verb ?? ''}`.trim();
    const extra = EXTRA_COMMANDS[command];
    if (extra) {
      const colour = colours(!values.json && colourEnabled(io.env, io.isTTY === true));
      const ctx = {
        arg,
        values,
        client,
        out,
        colours: colour,
        isTTY: io.isTTY === true,
        ...(intervalMs === undefined ? {} : { intervalMs }),
      };
      return await extra(io.signal ? { ...ctx, signal: io.signal } : ctx);
    }
    switch (command) {
      case 'workflow apply': {
        const file = need(values.file, '-f FILE');
        return values.draft
          ? await applyDraft(client(), file, out)
          : await applyWorkflow(client(), file, out);
      }
      case 'workflow publish':
        return await publishWorkflow(client(), need(arg, 'WORKFLOW (a name or wf_ id)'), out);
      case 'workflow list':
        return await listWorkflows(client(), out);
      case 'run start': {
        const args = {
          workflow: need(arg, 'WORKFLOW (a name or wf_ id)'),
          wait: values.wait === true,
          ...(intervalMs === undefined ? {} : { intervalMs }),
          ...(values.input !== undefined ? { input: values.input } : {}),
          ...(values['idempotency-key'] ? { idempotencyKey: values['idempotency-key'] } : {}),
        };
        if (values.record !== undefined) {
          const name = recordName(values['record-name']);
          const api = client();
          return await startRunCommand(
            api,
            { ...args, wait: true },
            out,
            saveRecording(api, values.record, out, name),
          );
        }
        return await startRunCommand(client(), args, out);
      }
      case 'run show': {
        const runId = need(arg, 'RUN');
        return await showRun(client(), runId, out);
      }
      case 'run transcript': {
        const runId = need(arg, 'RUN');
        return await showTranscript(client(), runId, out);
      }
      case 'run steps':
        return await showSteps(client(), need(arg, 'RUN'), out);
      case 'run pause':
      case 'run resume': {
        const runId = need(arg, 'RUN');
        return await runOperation(client(), `/v1/runs/${runId}/${verb}`, `${verb}d`, out);
      }
      case 'run retry-step': {
        const runId = need(arg, 'RUN');
        const stepId = need(positionals[3], 'STEP');
        return await runOperation(
          client(),
          `/v1/runs/${runId}/steps/${stepId}/retry`,
          `step ${stepId} retried`,
          out,
        );
      }
      case 'run receipts': {
        const runId = need(arg, 'RUN');
        return await listReceipts(client(), runId, out);
      }
      case 'audit verify': {
        if (values.owner) {
          if (arg) throw new UsageError('pass either RUN or --owner, not both');
          const publicKeyPath = auditPublicKeyPath({
            ...(values['public-key'] ? { publicKey: values['public-key'] } : {}),
            // The data directory as every command finds it (docs/cli.md): --data-dir, else WF_DATA_DIR, else .local.
            dataDir: localDataDir(values['data-dir'], io.env),
            // WF_AUTH=aws stands for --aws: a deployed stack's heads are never checked with the local stack's key.
            ...(values.aws || io.env.WF_AUTH === 'aws' ? { aws: true } : {}),
          });
          return await verifyOwnerAudit(client(), publicKeyPath ? { publicKeyPath } : {}, out);
        }
        const runId = need(arg, 'RUN');
        return await verifyAudit(client(), runId, out);
      }
      case 'whoami':
        return await whoami(client(), out);
      case 'approvals list':
        return await listApprovals(client(), values.status, out);
      case 'events put': {
        const args = {
          source: need(values.source, '--source'),
          detailType: need(values['detail-type'], '--detail-type'),
          detail: values.detail ?? '{}',
          ...(values.id ? { id: values.id } : {}),
        };
        return await putEvent(client(), args, out);
      }
      default:
        throw new UsageError(`unknown command '${command}'`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`wf: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof ApiError) {
      io.stderr(`wf: ${error.message} (${error.code}, HTTP ${error.status})`);
      for (const field of error.fields) io.stderr(`  - ${field.path}: ${field.message}`);
      return 1;
    }
    io.stderr(`wf: ${(error as Error).message}`);
    return 1;
  }
}
