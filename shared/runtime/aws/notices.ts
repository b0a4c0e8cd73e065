/** SNS for the functions that send notices: the owner topic (failed, denied, expired runs) and its client. */
import { SNSClient } from '@aws-sdk/client-sns';
import { ENV } from '../../../infra/constructs/env-names.ts';
import type { OwnerNoticeDeps } from '../../notify/owner-send.ts';
import { snsOwnerNotifier } from '../../notify/sns-owner.ts';
import { awsClient } from './client.ts';
import { awsEnv } from './env.ts';

let client: SNSClient | undefined;

/** The function's SNS client, built on first use. */
export function awsSns(): SNSClient {
  client ??= awsClient(new SNSClient({}));
  return client;
}

/** Owner notices to the owner topic; undefined where it is not configured. */
export function awsOwnerNotices(): OwnerNoticeDeps | undefined {
  const env = awsEnv();
  const topic = env[ENV.ownerTopicArn];
  const apiUrl = env[ENV.apiUrl];
  if (!topic || !apiUrl) return undefined;
  return { notifier: snsOwnerNotifier(awsSns(), topic), apiBaseUrl: apiUrl };
}
