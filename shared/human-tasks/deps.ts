/** What the human-task operations and pages are built from. */
import type { Keyring, KeyringSource } from '../approvals/index.ts';
import type { ApprovalLogger } from '../approvals-http/deps.ts';
import type { TaskTokensPort } from '../approvals-http/task-tokens.ts';
import { canonicalJson, sha256Hex } from '../audit/index.ts';
import type { Clock } from '../core/ports.ts';
import type { RunStore } from '../core/store-port.ts';
import type { Notifier } from '../notify/index.ts';
import type { HumanTask } from '../schemas/human-task.ts';

/** The run store plus the human-task reads (`DynamoStore` has both). */
export type HumanTaskStore = RunStore & {
  getHumanTask(taskId: string): Promise<HumanTask | undefined>;
  listRunHumanTasks(runId: string): Promise<HumanTask[]>;
};

export type HumanTaskDeps = {
  store: HumanTaskStore;
  clock: Clock;
  /** Signs links and form nonces with `current`; verifies `current` + `previous` (the approval keyring). */
  keyring: Keyring | KeyringSource;
  /** Origin (plus stage path): links are `<base>/human-tasks/<id>?t=…`. */
  publicBaseUrl: string;
  taskTokens: TaskTokensPort;
  logger?: ApprovalLogger;
};

/** SHA-256 of canonicalJSON({ stepId, form }): a link opens only the form it was signed for. */
export const formHash = (stepId: string, form: Record<string, unknown>): string =>
  sha256Hex(canonicalJson({ stepId, form }));

/** The audit actor of an assignee: `assignee:<id>` without whitespace (the audit schema's rule). */
export const assigneeActor = (assignee: string): string => `assignee:${assignee.replaceAll(/\s/g, '_')}`;

export type { Notifier };
