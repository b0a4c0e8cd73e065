/** The composition of deliver: alert topics (SNS) and HTTP connectors through the gate and egress guard. */
import { ENV } from '../../../infra/constructs/env-names.ts';
import type { DeliverDeps } from '../../core/deliver.ts';
import { systemClock } from '../clock.ts';
import { destinations } from '../destinations.ts';
import { awsCatalog } from './catalog.ts';
import { awsEgress } from './egress.ts';
import { alertTopicArnsOf, alertTopicOwnersOf, awsEnv } from './env.ts';
import { awsSns } from './notices.ts';
import { ownerSecrets } from './owner-secrets.ts';
import { awsSigningStore } from './signing-store.ts';

export async function deliverDeps(): Promise<DeliverDeps> {
  const env = awsEnv();
  const store = awsSigningStore();
  const alertTopic = env[ENV.alertTopicArn];
  return {
    store,
    clock: systemClock,
    destinations: destinations({
      sns: awsSns(),
      ...(alertTopic ? { defaultTopicArn: alertTopic } : {}),
      allowedTopicArns: alertTopicArnsOf(env),
      topicOwners: alertTopicOwnersOf(env),
      catalog: awsCatalog(store),
      egress: awsEgress(),
      secrets: ownerSecrets(),
      clock: systemClock,
    }),
  };
}
