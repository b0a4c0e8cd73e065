/**
 * Every subscription of a topic, page by page (ListSubscriptionsByTopic returns up to 100 per page with a
 * NextToken: https://docs.aws.amazon.com/sns/latest/api/API_ListSubscriptionsByTopic.html). Read-only: the
 * caller needs sns:ListSubscriptionsByTopic on the topic.
 */
import { ListSubscriptionsByTopicCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { ListedSubscription } from './subscriptions.ts';

export async function listTopicSubscriptions(
  client: SNSClient,
  topicArn: string,
): Promise<ListedSubscription[]> {
  const all: ListedSubscription[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListSubscriptionsByTopicCommand({ TopicArn: topicArn, ...(token ? { NextToken: token } : {}) }),
    );
    all.push(...(page.Subscriptions ?? []));
    token = page.NextToken;
  } while (token);
  return all;
}
