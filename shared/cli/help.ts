/**
 * Per-command help: `wf <command> --help` and `wf help <command>`. A command without an entry falls back to
 * the global usage. Each entry: usage line, what it does, options, examples.
 */
export type CommandHelp = { usage: string; summary: string; options?: string[]; examples: string[] };

export const HELP: Record<string, CommandHelp> = {
  'local up': {
    usage: 'wf local up [--port 8787] [--data-dir .local] [--fixtures DIR]',
    summary:
      'Runs the whole runtime on this machine until Ctrl-C. Without ANTHROPIC_API_KEY the scripted model serves the fixtures in DIR (default ./fixtures) and examples/fixtures; with it, Claude, and `run start --record` can save conversations. Prints a line for each run a schedule or an event starts.',
    options: [
      '--data-dir DIR   where its files live (default $WF_DATA_DIR, else .local), where the other commands read its API key',
      '--fixtures DIR   scripted-model fixtures (*.fixture.json), read again when a new one is asked for',
    ],
    examples: ['wf local up', 'wf local up --fixtures workflows/fixtures --port 8790'],
  },
  'workflow apply': {
    usage: 'wf workflow apply -f FILE [--draft]',
    summary:
      'Creates the workflow, or adds a version when FILE changed; an unchanged file (any key order) adds none.',
    options: ['--draft   save FILE as the open draft: runs and triggers use it only once published'],
    examples: [
      'wf workflow apply -f morning-news.workflow.yaml',
      'wf workflow apply -f morning-news.workflow.yaml --draft',
    ],
  },
  console: {
    usage: 'wf console --aws --url API_URL [--region R] [--port 8788]',
    summary:
      'Serves the web console for a deployed stack on 127.0.0.1, each API call signed with your AWS credentials, and prints a sign-in token. --url defaults to $WF_URL and --aws to $WF_AUTH=aws. Needs a stack deployed with apiAuth=iam (the default): a stack with -c apiAuth=jwt takes no IAM-signed requests. Locally, `wf local up` serves the console itself.',
    examples: [
      'wf console --aws --url https://abc123def4.execute-api.eu-central-1.amazonaws.com',
      'WF_URL=https://abc123def4.execute-api.eu-central-1.amazonaws.com WF_AUTH=aws wf console',
    ],
  },
  'workflow validate': {
    usage: 'wf workflow validate -f FILE',
    summary: 'Checks FILE against the workflow schema, offline; exit 1 with each field error.',
    examples: ['wf workflow validate -f my.workflow.yaml'],
  },
  'workflow diff': {
    usage: 'wf workflow diff -f FILE',
    summary: 'Shows what applying FILE would change against the latest version (- before, + after).',
    examples: ['wf workflow diff -f my.workflow.yaml --json'],
  },
  'workflow enable': {
    usage: 'wf workflow enable WORKFLOW',
    summary: 'Enables a workflow (its schedule or event rule fires again).',
    examples: ['wf workflow enable morning-news'],
  },
  'workflow disable': {
    usage: 'wf workflow disable WORKFLOW',
    summary: 'Disables a workflow: no new runs from its trigger or by hand.',
    examples: ['wf workflow disable morning-news'],
  },
  'workflow delete': {
    usage: 'wf workflow delete WORKFLOW',
    summary: 'Deletes a workflow: its name is free again; runs in flight stop at their next turn.',
    examples: ['wf workflow delete old-digest'],
  },
  'run start': {
    usage:
      'wf run start WORKFLOW [--input JSON] [--wait [--interval SECONDS]] [--idempotency-key KEY] [--record DIR [--record-name NAME]]',
    summary:
      "Starts a run. --wait follows it to the end (exit 3 when not done), polling every 0.4 s while it moves and backing off to 5 s while it waits; --interval SECONDS polls at a fixed pace instead. --record DIR (a local stack with ANTHROPIC_API_KEY) also saves the conversation as DIR/<workflow>.<NAME>.fixture.json (NAME: --record-name, or a hash of the run's first user message), to replay offline; each input recorded is its own conversation.",
    examples: [
      'wf run start notes-on-demand --input \'{"topic":"x"}\' --wait',
      'wf run start status-digest --record fixtures',
      'wf run start status-digest --input \'{"team":"web"}\' --record fixtures --record-name web-team',
    ],
  },
  'run list': {
    usage: 'wf run list [--workflow WORKFLOW] [--status STATUS] [--watch [--interval SECONDS]]',
    summary:
      'Lists runs, newest first. --watch redraws on a terminal, or prints each new run and status change; it polls every second while the list changes, backing off to 10 s while it does not (--interval SECONDS: a fixed pace).',
    examples: ['wf run list --status awaiting_approval', 'wf run list --workflow morning-news --watch'],
  },
  'run show': {
    usage: 'wf run show RUN',
    summary:
      'A run: status, trigger, tokens and cost, result or error, the run that replaced it (a schedule or event run that ended without starting) or the one it replaces, and the calls it refused (denied, expired).',
    examples: ['wf run show run_01J…'],
  },
  'run cancel': {
    usage: 'wf run cancel RUN',
    summary: 'Cancels a run that has not ended (an ended run is left as it is).',
    examples: ['wf run cancel run_01J…'],
  },
  'audit show': {
    usage: 'wf audit show RUN',
    summary:
      "A run's audit chain, one line per entry (denials and expiries highlighted), and whether it verifies (exit 4 when broken).",
    examples: ['wf audit show run_01J… --json'],
  },
  'fixture init': {
    usage: 'wf fixture init WORKFLOW_FILE [--out FILE] [--force]',
    summary:
      "Writes a starting scripted-model fixture for the workflow (fixtures/<name>.fixture.json beside it): it checks the workflow's actions are offered and ends with a text answer, so the workflow runs offline to done.",
    examples: ['wf fixture init status-digest.workflow.yaml'],
  },
};

/** The help text of a command, or undefined when it has no entry. */
export function helpFor(command: string): string | undefined {
  const help = HELP[command];
  if (!help) return undefined;
  return [
    `usage: ${help.usage}`,
    '',
    help.summary,
    ...(help.options?.length ? ['', 'options:', ...help.options.map((o) => `  ${o}`)] : []),
    '',
    'examples:',
    ...help.examples.map((e) => `  ${e}`),
    '',
    'Every command takes --url, --api-key, --aws [--region], --request-timeout S, --json (see wf --help).',
  ].join('\n');
}
