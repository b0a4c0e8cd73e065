/**
 * The commands added after the first `wf` (issue 17), each in its own module; main.ts dispatches here
 * before its own switch.
 */

import { auditShow } from './audit-show.ts';
import type { ApiClient } from './client.ts';
import type { Colours } from './colour.ts';
import { type Output, showRun, UsageError } from './commands.ts';
import { fixtureInit } from './fixture-init.ts';
import { runCancel, runList } from './run-list.ts';
import { diffWorkflow, setWorkflowState, validateWorkflowFile } from './workflow-admin.ts';

export type ExtraContext = {
  arg: string | undefined;
  values: {
    file?: string;
    workflow?: string;
    status?: string;
    watch?: boolean;
    out?: string;
    force?: boolean;
  };
  client: () => ApiClient;
  out: Output;
  colours: Colours;
  isTTY: boolean;
  /** `--interval`: a fixed wait between `--watch`'s polls. */
  intervalMs?: number;
  signal?: AbortSignal;
};

const need = (value: string | undefined, what: string): string => {
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
};

/** Arguments are checked before the client is built: a usage error (exit 2) needs no API key. */
export const EXTRA_COMMANDS: Record<string, (ctx: ExtraContext) => Promise<number> | number> = {
  'run list': (x) => {
    const args = {
      ...(x.values.workflow ? { workflow: x.values.workflow } : {}),
      ...(x.values.status ? { status: x.values.status } : {}),
      watch: x.values.watch === true,
      redraw: x.isTTY,
      ...(x.intervalMs === undefined ? {} : { intervalMs: x.intervalMs }),
      ...(x.signal ? { signal: x.signal } : {}),
    };
    return runList(x.client(), args, x.out, x.colours);
  },
  'run cancel': (x) => {
    const runId = need(x.arg, 'RUN');
    return runCancel(x.client(), runId, x.out, x.colours);
  },
  'run show': (x) => {
    const runId = need(x.arg, 'RUN');
    return showRun(x.client(), runId, x.out, x.colours);
  },
  'workflow enable': (x) => workflowState(x, 'enable'),
  'workflow disable': (x) => workflowState(x, 'disable'),
  'workflow delete': (x) => workflowState(x, 'delete'),
  'workflow validate': (x) => validateWorkflowFile(need(x.values.file ?? x.arg, '-f FILE'), x.out, x.colours),
  'workflow diff': (x) => {
    const file = need(x.values.file ?? x.arg, '-f FILE');
    return diffWorkflow(x.client(), file, x.out, x.colours);
  },
  'audit show': (x) => {
    const runId = need(x.arg, 'RUN');
    return auditShow(x.client(), runId, x.out, x.colours);
  },
  'fixture init': (x) =>
    fixtureInit(
      need(x.values.file ?? x.arg, 'WORKFLOW_FILE'),
      { ...(x.values.out ? { out: x.values.out } : {}), force: x.values.force === true },
      x.out,
    ),
};

function workflowState(x: ExtraContext, action: 'enable' | 'disable' | 'delete') {
  const workflow = need(x.arg, 'WORKFLOW');
  return setWorkflowState(x.client(), workflow, action, x.out);
}
