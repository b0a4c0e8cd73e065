import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { type ApprovalNotice, type Notifier, noticeBody, noticeSubject } from './notice.ts';

/**
 * The message attribute email subscriptions filter on (`{"approver": ["alice@example.com"]}`): its value
 * is the approver's id, trimmed and lower-cased, so each approver receives only the link signed for them.
 */
export const APPROVER_ATTRIBUTE = 'approver';

/** The attribute value that routes a notice to one approver's subscription. */
export const approverAttributeValue = (approver: string): string => approver.trim().toLowerCase();

/**
 * Publishes one SNS message per notice (one per approver) to the approval-notices topic. `subscribed` is the
 * approver list the CDK subscribed (`WF_APPROVERS`): SNS accepts a publish for anyone and silently drops what
 * no subscription's filter matches, so only those addresses count as reachable.
 */
export function snsNotifier(client: SNSClient, topicArn: string, subscribed: readonly string[]): Notifier {
  const listed = new Set(subscribed.map(approverAttributeValue));
  return {
    channel: 'sns',
    reaches: (approver) => listed.has(approverAttributeValue(approver)),
    async notify(notice: ApprovalNotice): Promise<void> {
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
          },
        }),
      );
    },
  };
}
