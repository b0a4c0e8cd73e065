export { consoleNoticeText, consoleNotifier } from './console.ts';
export type { InboxNotifier } from './inbox.ts';
export { inboxNotifier, renderInbox, renderInboxSignIn } from './inbox.ts';
export type { ApprovalNotice, Notifier } from './notice.ts';
export { argsPreview, noticeBody, noticeSubject, visible } from './notice.ts';
export { APPROVER_ATTRIBUTE, approverAttributeValue, snsNotifier } from './sns.ts';
export { SNS_SUBJECT_MAX, snsSubject } from './sns-subject.ts';
