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
  signal?: AbortSignal;
};

const need = (value: string | undefined, what: string): string => {
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
};

export const EXTRA_COMMANDS: Record<string, (ctx: ExtraContext) => Promise<number> | number> = {
  'run list': (x) =>
    runList(
      x.client(),
      {
        ...(x.values.workflow ? { workflow: x.values.workflow } : {}),
        ...(x.values.status ? { status: x.values.status } : {}),
        watch: x.values.watch === true,
        redraw: x.isTTY,
        ...(x.signal ? { signal: x.signal } : {}),
      },
      x.out,
      x.colours,
    ),
  'run cancel': (x) => runCancel(x.client(), need(x.arg, 'RUN'), x.out, x.colours),
  'run show': (x) => showRun(x.client(), need(x.arg, 'RUN'), x.out, x.colours),
  'workflow enable': (x) => setWorkflowState(x.client(), need(x.arg, 'WORKFLOW'), 'enable', x.out),
  'workflow disable': (x) => setWorkflowState(x.client(), need(x.arg, 'WORKFLOW'), 'disable', x.out),
  'workflow delete': (x) => setWorkflowState(x.client(), need(x.arg, 'WORKFLOW'), 'delete', x.out),
  'workflow validate': (x) => validateWorkflowFile(need(x.values.file ?? x.arg, '-f FILE'), x.out, x.colours),
  'workflow diff': (x) => diffWorkflow(x.client(), need(x.values.file ?? x.arg, '-f FILE'), x.out, x.colours),
  'audit show': (x) => auditShow(x.client(), need(x.arg, 'RUN'), x.out, x.colours),
  'fixture init': (x) =>
    fixtureInit(
      need(x.values.file ?? x.arg, 'WORKFLOW_FILE'),
      { ...(x.values.out ? { out: x.values.out } : {}), force: x.values.force === true },
      x.out,
    ),
};
