export { consoleNoticeText, consoleNotifier, consoleOwnerNotifier } from './console.ts';
export type { InboxNotifier } from './inbox.ts';
export { inboxNotifier, renderInbox, renderInboxSignIn } from './inbox.ts';
export type { ApprovalNotice, Notifier } from './notice.ts';
export { argsPreview, noticeBody, noticeSubject, visible } from './notice.ts';
export type { OwnerNotice, OwnerNoticeKind, OwnerNotifier } from './owner-notice.ts';
export { OWNER_NOTICE_KINDS, ownerNoticeBody, ownerNoticeSubject } from './owner-notice.ts';
export { approvalEndedNotice, runEndedNotice, runUrlFor } from './owner-notices-from.ts';
export { type OwnerNoticeDeps, sendOwnerNotice } from './owner-send.ts';
export type { ApproverOwners, ApproverReach } from './reach.ts';
export { ANY_OWNER, declaredApprovers, everyApprover, parseApproverOwners } from './reach.ts';
export { APPROVER_ATTRIBUTE, ApproverNotDeclaredError, approverAttributeValue, snsNotifier } from './sns.ts';
export {
  SNS_MESSAGE_CUT_NOTE,
  SNS_MESSAGE_MAX_BYTES,
  snsAttributeBytes,
  snsMessage,
} from './sns-message.ts';
export { NOTICE_KIND_ATTRIBUTE, OWNER_ATTRIBUTE, snsOwnerNotifier } from './sns-owner.ts';
export { SNS_SUBJECT_MAX, snsSubject } from './sns-subject.ts';
