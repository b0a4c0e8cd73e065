/**
 * Before an upgrade: are all the stack's email subscriptions still there? Read-only (ListSubscriptionsByTopic).
 *
 *   aws cloudformation get-template --stack-name <stack> --query TemplateBody --output json > deployed.json
 *   aws cloudformation describe-stacks --stack-name <stack> --query 'Stacks[0].Outputs' --output json > outputs.json
 *   npx node infra/upgrade/check-subscriptions.ts --template deployed.json --outputs outputs.json
 *
 * Exits 1 and names each missing or pending subscription, with what to do (docs/deploy.md, Upgrade).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SNSClient } from '@aws-sdk/client-sns';
import { listTopicSubscriptions } from './list-subscriptions.ts';
import {
  classify,
  declaredSubscriptions,
  type ListedSubscription,
  outputsFrom,
  subscriptionReport,
  templateFrom,
} from './subscriptions.ts';

const { values } = parseArgs({ options: { template: { type: 'string' }, outputs: { type: 'string' } } });
if (values.template === undefined || values.outputs === undefined) {
  console.error('usage: check-subscriptions.ts --template <deployed template.json> --outputs <outputs.json>');
  process.exit(2);
}
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));
const declared = declaredSubscriptions(
  templateFrom(readJson(values.template)),
  outputsFrom(readJson(values.outputs)),
);
const listed = new Map<string, ListedSubscription[]>();
for (const topicArn of new Set(declared.map((each) => each.topicArn))) {
  // The topic's own region (arn:aws:sns:<region>:<account>:<name>), whatever the shell's default.
  const client = new SNSClient({ region: topicArn.split(':')[3] ?? '' });
  listed.set(topicArn, await listTopicSubscriptions(client, topicArn));
  client.destroy();
}
const report = subscriptionReport(classify(declared, listed));
for (const line of report.lines) console.log(line);
process.exit(report.ok ? 0 : 1);
