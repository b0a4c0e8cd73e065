/** What the approval HTTP app and the request-approval core are built from. */
import type { Keyring, KeyringSource } from '../approvals/index.ts';
import type { ActionSpecCatalog } from '../core/actions.ts';
import type { Clock } from '../core/ports.ts';
import type { RunStore } from '../core/store-port.ts';
import type { TaskTokensPort } from './task-tokens.ts';

/**
 * Structured log lines. The Powertools `Logger` fits as is. Callers here never pass a link token, a form
 * nonce or a task token in `fields`.
 */
export interface ApprovalLogger {
  info(message: string, fields: Record<string, unknown>): void;
  warn(message: string, fields: Record<string, unknown>): void;
  error(message: string, fields: Record<string, unknown>): void;
}

/** JSON lines on stderr: the fallback when no logger is given. */
export const consoleLogger: ApprovalLogger = {
  info: (message, fields) => console.error(JSON.stringify({ level: 'INFO', message, ...fields })),
  warn: (message, fields) => console.error(JSON.stringify({ level: 'WARN', message, ...fields })),
  error: (message, fields) => console.error(JSON.stringify({ level: 'ERROR', message, ...fields })),
};

/** Dependencies of `createApprovalApp`. */
export type ApprovalAppDeps = {
  store: RunStore;
  clock: Clock;
  /**
   * From the signing secret: signs form nonces with `current`, verifies `current` + `previous`. A live source
   * (`cachedKeyring`) follows rotation within its TTL and is re-read once when a signature check fails.
   */
  keyring: Keyring | KeyringSource;
  taskTokens: TaskTokensPort;
  /** Origin (plus stage path, if any) the pages are served under; forms post to `<base>/approvals/<id>`. */
  publicBaseUrl: string;
  /**
   * Resolves the action's description and `irreversible` flag for the page; without it the page shows none.
   * Specs are enough (shared/actions/spec-catalog.ts): the pages never run an action.
   */
  actions?: ActionSpecCatalog;
  logger?: ApprovalLogger;
};

/**
 * The `publicBaseUrl` for a configured approval-pages URL: a trailing `/approvals` is dropped, because
 * `approvalUrl` / `approvalPostUrl` add it (`WF_APPROVAL_BASE_URL` is `https://…/approvals`).
 */
export function publicBaseUrlFrom(approvalPagesUrl: string): string {
  return approvalPagesUrl.replace(/\/+$/, '').replace(/\/approvals$/, '');
}
