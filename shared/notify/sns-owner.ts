import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { type OwnerNotice, type OwnerNotifier, ownerNoticeBody, ownerNoticeSubject } from './owner-notice.ts';

/**
 * The message attribute owner subscriptions filter on (`{"owner": ["<owner id>"]}`): the run's owner id,
 * exactly as the API's identity gives it (owner ids are case-sensitive), so each owner hears only of their runs.
 */
export const OWNER_ATTRIBUTE = 'owner';

/** The message attribute naming what the notice is about (`run_failed`, …): lets a subscription narrow further. */
export const NOTICE_KIND_ATTRIBUTE = 'kind';

/** Publishes one SNS message per owner notice to the owner-notices topic (not the approval topic). */
export function snsOwnerNotifier(client: SNSClient, topicArn: string): OwnerNotifier {
  return {
    channel: 'sns',
    async notifyOwner(notice: OwnerNotice): Promise<void> {
      await client.send(
        new PublishCommand({
          TopicArn: topicArn,
          Subject: ownerNoticeSubject(notice),
          Message: ownerNoticeBody(notice),
          MessageAttributes: {
            [OWNER_ATTRIBUTE]: { DataType: 'String', StringValue: notice.owner },
            [NOTICE_KIND_ATTRIBUTE]: { DataType: 'String', StringValue: notice.kind },
          },
        }),
      );
    },
  };
}
