import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { type ApprovalNotice, type Notifier, noticeBody, noticeSubject } from './notice.ts';
import type { ApproverReach } from './reach.ts';
import { OWNER_ATTRIBUTE } from './sns-owner.ts';

/**
 * The message attribute email subscriptions filter on (`{"approver": ["alice@example.com"]}`): its value
 * is the approver's id, trimmed and lower-cased, so each approver receives only the link signed for them.
 */
export const APPROVER_ATTRIBUTE = 'approver';

/** The attribute value that routes a notice to one approver's subscription. */
export const approverAttributeValue = (approver: string): string => approver.trim().toLowerCase();

/** A notice refused before it was sent: its approver is not declared for the owner whose run asks. */
export class ApproverNotDeclaredError extends Error {
  override readonly name = 'ApproverNotDeclaredError';
  constructor() {
    super("the approver is not declared for this run's owner; nothing was sent");
  }
}

/**
 * Publishes one SNS message per notice (one per approver) to the approval-notices topic. `declared` is what the
 * CDK subscribed and for which owners (`WF_APPROVER_OWNERS`): SNS accepts a publish for anyone and silently
 * drops what no subscription's filter matches, so only those count as reachable. A notice for an approver not
 * declared for its owner is refused here too (whoever calls `notify`), and each message carries the `owner`
 * attribute the subscriptions also filter on.
 */
export function snsNotifier(client: SNSClient, topicArn: string, declared: ApproverReach): Notifier {
  return {
    channel: 'sns',
    reaches: (approver, owner) => declared.reaches(approver, owner),
    async notify(notice: ApprovalNotice): Promise<void> {
      if (!declared.reaches(notice.approver, notice.owner)) throw new ApproverNotDeclaredError();
      await client.send(
        new PublishCommand({
          TopicArn: topicArn,
          Subject: noticeSubject(notice),
          Message: noticeBody(notice),
          MessageAttributes: {
            [APPROVER_ATTRIBUTE]: {
              DataType: 'String',
              StringValue: approverAttributeValue(notice.approver),
            },
            [OWNER_ATTRIBUTE]: { DataType: 'String', StringValue: notice.owner },
          },
        }),
      );
    },
  };
}
