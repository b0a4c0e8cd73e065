/** What the handler shells that end runs call to tell the owner: best effort, loud in the logs on failure. */
import type { OwnerNotice, OwnerNotifier } from './owner-notice.ts';

/** Where owner notices go and how run links are made. */
export type OwnerNoticeDeps = {
  notifier: OwnerNotifier;
  /** The API's base URL (no `/v1`): run links are `<apiBaseUrl>/v1/runs/<id>`. */
  apiBaseUrl: string;
};

type ErrorLog = { error(message: string, fields: Record<string, unknown>): void };

/**
 * Sends `notice` (if any). A failure is logged as an error and swallowed: the run's record is already final,
 * and failing the handler would only retry or fail a run that has ended. Returns whether it was handed over.
 */
export async function sendOwnerNotice(
  notifier: OwnerNotifier | undefined,
  notice: OwnerNotice | undefined,
  log: ErrorLog,
): Promise<boolean> {
  if (notice === undefined) return false;
  if (notifier === undefined) {
    log.error('owner notice not sent: no owner notifier is configured', { kind: notice.kind });
    return false;
  }
  try {
    await notifier.notifyOwner(notice);
    return true;
  } catch (error) {
    log.error('owner notice not sent', {
      kind: notice.kind,
      channel: notifier.channel,
      error: (error as Error | undefined)?.name ?? 'Error',
    });
    return false;
  }
}
