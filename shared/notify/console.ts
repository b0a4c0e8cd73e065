import { type ApprovalNotice, type Notifier, noticeBody, noticeSubject } from './notice.ts';
import { type OwnerNotifier, ownerNoticeBody, ownerNoticeSubject } from './owner-notice.ts';

const RULE = '-'.repeat(72);

/** The block a console notice prints: subject, body and link, framed so it stands out in a log stream. */
export function consoleNoticeText(notice: ApprovalNotice): string {
  return `\n${RULE}\n${noticeSubject(notice)}\n\n${noticeBody(notice)}\n${RULE}\n`;
}

/**
 * Prints each notice (with its link) through `write`: the local stack and the demo, where the terminal is
 * the approver's inbox. Never use it where output is shipped to shared logs: the link is a credential.
 */
export function consoleNotifier(write: (text: string) => void): Notifier {
  return {
    channel: 'console',
    // The terminal is everyone's inbox locally.
    reaches: () => true,
    async notify(notice: ApprovalNotice): Promise<void> {
      write(consoleNoticeText(notice));
    },
  };
}

/** Prints each owner notice (no approval link in it) through `write`: the local stack's terminal. */
export function consoleOwnerNotifier(write: (text: string) => void): OwnerNotifier {
  return {
    channel: 'console',
    async notifyOwner(notice) {
      write(`\n${RULE}\n${ownerNoticeSubject(notice)}\n\n${ownerNoticeBody(notice)}\n${RULE}\n`);
    },
  };
}
