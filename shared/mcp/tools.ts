/**
 * The delegated-jobs operations as MCP tools (docs/jobs.md, "MCP"). Each tool's input schema is the zod
 * schema the REST route validates with (shared/jobs/schemas.ts), and its result is the JSON the REST route
 * answers: as `structuredContent` and as a text rendering. The caller is the verified identity, never an
 * argument.
 */

import {
  cancelJob,
  getJob,
  type JobCaller,
  JobRefSchema,
  type JobsDeps,
  ListJobsSchema,
  listJobs,
  SubmitJobSchema,
  submitJob,
} from '../jobs/index.ts';
import type * as z from '../zod.ts';

/** One MCP tool: its name, what a model reads about it, its input schema and what it does. */
export type JobTool<S extends z.ZodMiniObject = z.ZodMiniObject> = {
  name: string;
  title: string;
  description: string;
  inputSchema: S;
  /** Read-only tools are annotated so clients may call them without asking. */
  readOnly: boolean;
  run(deps: JobsDeps, caller: JobCaller, args: z.output<S>): Promise<Record<string, unknown>>;
};

const tool = <S extends z.ZodMiniObject>(definition: JobTool<S>): JobTool<S> => definition;

export const JOB_TOOLS = [
  tool({
    name: 'submit_agent_job',
    title: 'Submit an agent job',
    description:
      "Delegates a task to an agent under this client's grant. Answers the job id and its state (queued or " +
      'running), never the result: poll it with get_agent_job. An identical submission while the earlier one ' +
      'is queued or running answers that job with coalesced: true. dryRun: true answers the resolved ' +
      'constraints (tools, model, limits, budget) and queues nothing.',
    inputSchema: SubmitJobSchema,
    readOnly: false,
    run: (deps, caller, args) => submitJob(deps, caller, args),
  }),
  tool({
    name: 'get_agent_job',
    title: 'Get an agent job',
    description:
      'Polls one of your jobs: status, queue position while queued, result text once done, stop reason, ' +
      'turns, usage and cost, the error when it failed and how it is being retried.',
    inputSchema: JobRefSchema,
    readOnly: true,
    run: async (deps, caller, args) => ({ job: await getJob(deps, caller, args.jobId) }),
  }),
  tool({
    name: 'cancel_agent_job',
    title: 'Cancel an agent job',
    description:
      'Cancels one of your jobs and says what was stopped: a job that never started (queued, or being ' +
      'started before its run existed), a running run, or nothing (it had already ended; a repeated cancel ' +
      'answers this). A job being started is cancelled too: it ends cancelled and no run of it is left running.',
    inputSchema: JobRefSchema,
    readOnly: false,
    run: (deps, caller, args) => cancelJob(deps, caller, args.jobId),
  }),
  tool({
    name: 'list_agent_jobs',
    title: 'List agent jobs',
    description: 'Lists your jobs, newest first, optionally by status; page with nextToken.',
    inputSchema: ListJobsSchema,
    readOnly: true,
    run: (deps, caller, args) => listJobs(deps, caller, args),
  }),
];
