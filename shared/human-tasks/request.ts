/**
 * What the graph's `human_task` step does when its execution parks on `waitForTaskToken`, once its wait
 * (shared/graph-run/wait.ts) has evaluated the context and the expiry and calls `humanTaskPort.request`:
 * `openHumanTask` creates the step attempt's task record (or, on a re-request, stores the newer task token on
 * it), then sends each reachable assignee their own signed link and audits each notice a channel accepted
 * (never the link). A task that reaches nobody is closed at once and the wait failed (fail closed), and a task
 * that is already over answers the wait at once.
 */

import { type Keyring, keyringSourceOf, pagePostUrl } from '../approvals/index.ts';
import { consoleLogger } from '../approvals-http/deps.ts';
import type { TaskTokenAnswer } from '../approvals-http/task-tokens.ts';
import { isoAt } from '../core/engine.ts';
import { HumanTaskClosedError } from '../core/store-errors.ts';
import { isLaterWait } from '../graph-run/wait-fence.ts';
import type { Notifier } from '../notify/index.ts';
import { SCHEMA_VERSION } from '../schemas/common.ts';
import { type ContextValue, type HumanTask, humanTaskId } from '../schemas/human-task.ts';
import { commitTaskChange, runIsLive } from './commit.ts';
import { formHash, type HumanTaskDeps } from './deps.ts';
import { HUMAN_TASK_ERRORS } from './errors.ts';
import { sendNotices } from './notices.ts';

export type RequestHumanTaskDeps = HumanTaskDeps & { notifier: Notifier };

export type RequestHumanTaskResult =
  /** Links went out (`failed`: assignees whose send failed; the others can still submit). */
  | { status: 'notified'; taskId: string; notified: string[]; failed: { assignee: string; error: string }[] }
  /** A re-request of a task whose links already went out: only the task token was replaced. */
  | { status: 'waiting'; taskId: string }
  /** A late request of an earlier attempt of the wait: a later attempt's token is stored, nothing changed. */
  | { status: 'superseded'; taskId: string }
  /** The task was already over (submitted, expired, closed) or its run ended: the wait was answered at once. */
  | {
      status: 'answered';
      taskId: string;
      outcome: HumanTask['status'] | 'run_ended';
      answer: TaskTokenAnswer;
    }
  /** No assignee could be sent a link: the task was closed and the wait failed with `HumanTask.Undeliverable`. */
  | { status: 'undeliverable'; taskId: string; answer: TaskTokenAnswer };

/** What a task is opened from: the graph executor's request (`humanTaskPort`), the context already evaluated. */
export type TaskSpec = {
  runId: string;
  stepId: string;
  attempt: number;
  taskToken: string;
  /** The wait attempt's fence (shared/graph-run/wait-fence.ts); absent for a wait of an earlier definition. */
  waitFence?: string;
  title: string;
  assignees: readonly string[];
  form: Record<string, unknown>;
  /** Stored only when the task is created (a re-request keeps the first snapshot). */
  context: ContextValue[];
  /** When the task and its links expire (the wait's window: shared/graph-run/human-window.ts). */
  expiresAt: string;
};

/** The new record of a step attempt. */
function newTask(
  deps: RequestHumanTaskDeps,
  spec: TaskSpec,
  run: NonNullable<Parameters<typeof runIsLive>[0]>,
  taskId: string,
): HumanTask {
  const nowMs = deps.clock.nowMs();
  return {
    schemaVersion: SCHEMA_VERSION,
    taskId,
    owner: run.owner,
    runId: run.runId,
    stepId: spec.stepId,
    attempt: spec.attempt,
    workflowId: run.workflowId,
    workflowName: run.workflowName,
    workflowVersion: run.workflowVersion,
    title: spec.title,
    assignees: [...new Set(spec.assignees)],
    form: spec.form,
    formHash: formHash(spec.stepId, spec.form),
    context: spec.context,
    status: 'open',
    createdAt: new Date(nowMs).toISOString(),
    expiresAt: spec.expiresAt,
    taskToken: spec.taskToken,
    ...(spec.waitFence === undefined ? {} : { waitFence: spec.waitFence }),
  };
}

type Opened =
  | { task: HumanTask; fresh: boolean }
  | { superseded: true }
  | { over: HumanTask['status'] | 'run_ended'; task?: HumanTask };

/** Creates the task, or stores the newer token on an open one; says when it is already over. */
function openTask(deps: RequestHumanTaskDeps, input: TaskSpec, taskId: string) {
  return commitTaskChange<Opened>(deps, input.runId, async (run) => {
    const existing = await deps.store.getHumanTask(taskId);
    if (existing !== undefined && existing.status !== 'open')
      return { result: { over: existing.status, task: existing } };
    if (!runIsLive(run)) return { result: { over: 'run_ended', ...(existing ? { task: existing } : {}) } };
    // A later attempt of the wait stored its token: this one's is dead. The commit is fenced on the run's
    // revision, so a later attempt's write after this read makes this plan run again and stop here.
    if (existing && isLaterWait(existing.waitFence, input.waitFence)) return { result: { superseded: true } };
    const fence = input.waitFence === undefined ? {} : { waitFence: input.waitFence };
    const task = existing
      ? { ...existing, taskToken: input.taskToken, ...fence }
      : newTask(deps, input, run, taskId);
    return {
      result: { task, fresh: existing === undefined },
      writes: [existing ? { task, expectedStatus: 'open' as const } : { task }],
      audit: [
        {
          type: 'human_task_requested' as const,
          actor: 'system',
          data: {
            taskId,
            stepId: task.stepId,
            attempt: task.attempt,
            title: task.title,
            assignees: task.assignees,
            formHash: task.formHash,
            expiresAt: task.expiresAt,
            ...(existing ? { rerequested: true } : {}),
          },
        },
      ],
    };
  });
}

/** Answers a wait whose task is already over: the submission, or a failure naming why. */
async function answerOver(
  deps: RequestHumanTaskDeps,
  token: string,
  over: HumanTask['status'] | 'run_ended',
  task?: HumanTask,
) {
  if (over === 'submitted' && task?.submission !== undefined) {
    return deps.taskTokens.sendSuccess(token, { output: task.submission });
  }
  const error =
    over === 'expired'
      ? HUMAN_TASK_ERRORS.expired
      : over === 'run_ended'
        ? HUMAN_TASK_ERRORS.runEnded
        : HUMAN_TASK_ERRORS.closed;
  return deps.taskTokens.sendFailure(token, error, `the human task is ${over.replace('_', ' ')}`);
}

/**
 * Opens (or re-opens the wait of) the human task of `stepId`'s attempt: open or refresh the record, send each
 * assignee their link, answer a wait that is over. Idempotent per attempt: a retried request replaces the token
 * and sends no second round of links.
 */
export async function openHumanTask(
  deps: RequestHumanTaskDeps,
  input: TaskSpec,
): Promise<RequestHumanTaskResult> {
  const logger = deps.logger ?? consoleLogger;
  const taskId = humanTaskId(input.runId, input.stepId, input.attempt);
  // A misconfigured base URL fails here, loudly, before anything is written.
  pagePostUrl(deps.publicBaseUrl, 'human-tasks', taskId);
  let opened: Opened;
  try {
    opened = await openTask(deps, input, taskId);
  } catch (error) {
    // Two requests raced to create it: the loser re-reads and refreshes the token instead.
    if (!(error instanceof HumanTaskClosedError) || error.status !== 'exists') throw error;
    opened = await openTask(deps, input, taskId);
  }
  if ('superseded' in opened) return { status: 'superseded', taskId };
  if ('over' in opened) {
    const answer = await answerOver(deps, input.taskToken, opened.over, opened.task);
    logger.info('human task already over; wait answered at once', { taskId, outcome: opened.over, answer });
    return { status: 'answered', taskId, outcome: opened.over, answer };
  }
  if (!opened.fresh && opened.task.notifiedAt !== undefined) return { status: 'waiting', taskId };
  const keyring: Keyring = await keyringSourceOf(deps.keyring).get();
  const sent = await sendNotices(deps, keyring, opened.task, isoAt(deps.clock));
  if (sent.notified.length > 0) return { status: 'notified', taskId, ...sent };
  logger.error('human task undeliverable: no assignee could be sent a link', {
    taskId,
    failed: sent.failed.map((f) => `${f.assignee}: ${f.error}`),
  });
  const answer = await deps.taskTokens.sendFailure(
    input.taskToken,
    HUMAN_TASK_ERRORS.undeliverable,
    'no assignee of the human task could be sent a link',
  );
  return { status: 'undeliverable', taskId, answer };
}
