/**
 * The alert topics a deployment declares (`alertTopics`, docs/deploy.md "Alert topics"): a topic alone is
 * usable by every owner (as before owners could be listed); `{ topic, owners }` by those owners only. Deliver
 * may publish to each; WorkflowWrite and Deliver both get the owners (WF_ALERT_TOPIC_OWNERS) and refuse a
 * topic declared for other owners as they refuse an undeclared one (shared/notify/alert-topics.ts).
 */
import { Stack, Token } from 'aws-cdk-lib';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';

/** An alert topic only the listed owners may name in `destination.topicArn`. */
export interface OwnedAlertTopic {
  /** The topic. */
  readonly topic: sns.ITopic;
  /** The owner ids that may name it (`wf whoami` prints one); at least one. */
  readonly owners: readonly string[];
}

/** A declared alert topic: every owner's, or only some owners' (`{ topic, owners }`). */
export type AlertTopicDeclaration = sns.ITopic | OwnedAlertTopic;

const OWNER_ID = /^[A-Za-z0-9._:@+=|/-]{1,128}$/;
/**
 * Lambda allows 4 KB of environment variables per function in aggregate
 * (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html); the owner lists get half.
 */
const MAX_OWNERS_JSON = 2048;

const isOwned = (declared: AlertTopicDeclaration): declared is OwnedAlertTopic =>
  'topic' in declared && 'owners' in declared;

/**
 * The declared topics, the owners value of WF_ALERT_TOPIC_OWNERS (undefined: none is restricted), and the
 * topics several owners share (the default, each topic alone, each declared for two or more owners), whose
 * subscriptions must filter on the owner (alert-subscriptions.ts).
 */
export function resolveAlertTopics(
  scope: Construct,
  declared: readonly AlertTopicDeclaration[],
  defaultTopic: sns.ITopic | undefined,
): { topics: sns.ITopic[]; ownersJson: string | undefined; shared: sns.ITopic[] } {
  const topics: sns.ITopic[] = [];
  const shared: sns.ITopic[] = defaultTopic === undefined ? [] : [defaultTopic];
  const owned: { topicArn: string; owners: string[] }[] = [];
  for (const entry of declared) {
    const topic = isOwned(entry) ? entry.topic : entry;
    if (topics.some((known) => known.topicArn === topic.topicArn))
      throw new Error(`alertTopics: ${describe(topic)} is declared twice; declare each topic once.`);
    topics.push(topic);
    if (!isOwned(entry)) {
      shared.push(topic);
      continue;
    }
    if (defaultTopic !== undefined && topic.topicArn === defaultTopic.topicArn)
      throw new Error(
        `alertTopics: ${describe(topic)} is the default alertTopic, which every owner's alerts use; it cannot be restricted to some owners.`,
      );
    if (entry.owners.length === 0)
      throw new Error(
        `alertTopics: ${describe(topic)} lists no owners; list at least one, or give the topic alone for every owner.`,
      );
    for (const owner of entry.owners)
      if (!OWNER_ID.test(owner))
        throw new Error(
          `alertTopics: owner '${owner}' of ${describe(topic)} is not an owner id; use the id the API reports (wf whoami).`,
        );
    const owners = [...new Set(entry.owners)];
    if (owners.length > 1) shared.push(topic);
    owned.push({ topicArn: topic.topicArn, owners });
  }
  if (owned.length === 0) return { topics, ownersJson: undefined, shared };
  const ownerChars = JSON.stringify(owned.map((entry) => entry.owners)).length;
  if (ownerChars > MAX_OWNERS_JSON)
    throw new Error(
      `alertTopics: the owner lists take ${ownerChars} characters; at most ${MAX_OWNERS_JSON} fit a function's environment (Lambda's 4 KB).`,
    );
  return { topics, ownersJson: Stack.of(scope).toJsonString(owned), shared };
}

const describe = (topic: sns.ITopic): string =>
  Token.isUnresolved(topic.topicArn) ? `topic '${topic.node.path}'` : `topic '${topic.topicArn}'`;
