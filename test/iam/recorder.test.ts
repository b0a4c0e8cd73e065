/** The AWS call recorder: identifiers only, never data; the calling function from the async context. */
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AwsCallRecord,
  identifiersOf,
  recordAwsCalls,
  withFunctionName,
} from '../../shared/runtime/aws-call-recorder.ts';
import { type FakeAws, startFakeAws } from './fake-aws.ts';

let fake: FakeAws;
beforeAll(async () => {
  fake = await startFakeAws();
});
afterAll(() => fake.close());

describe('Function: identifiersOf', () => {
  it("keeps names, ARNs, ids and an item's partition key, and drops items, messages, secret values and task tokens", () => {
    const ids = identifiersOf({
      TransactItems: [
        { Put: { TableName: 't', Item: { pk: 'RUN#r1', sk: 'RUN', runId: 'r1', secret: 's' } } },
        { Update: { TableName: 't', Key: { pk: 'p' }, ExpressionAttributeValues: { ':v': 'x' } } },
      ],
      TopicArn: 'arn:aws:sns:eu-west-1:123456789012:topic',
      Message: 'hello',
      SecretString: 'sk-ant-secret',
      taskToken: 'token',
      Tags: [{ Key: 'owner', Value: 'alice' }],
    });
    expect(ids).toEqual({
      'TransactItems.0.Put.TableName': 't',
      'TransactItems.0.Put.Item.pk': 'RUN#r1',
      'TransactItems.1.Update.TableName': 't',
      'TransactItems.1.Update.Key.pk': 'p',
      TopicArn: 'arn:aws:sns:eu-west-1:123456789012:topic',
      'Tags.0.Key': 'owner',
      'Tags.0.Value': 'alice',
    });
  });
});

describe('Function: identifiersOf on a batch read', () => {
  it('keeps the table names and the partition key of each key, and drops the rest', () => {
    const ids = identifiersOf({
      RequestItems: {
        t: {
          Keys: [
            { pk: 'RUN#r1', sk: 'RUN' },
            { pk: 'APR#a1', sk: 'APR' },
          ],
          ConsistentRead: true,
        },
      },
    });
    expect(ids).toEqual({
      'RequestItems.0.TableName': 't',
      'RequestItems.0.Keys.0.pk': 'RUN#r1',
      'RequestItems.0.Keys.1.pk': 'APR#a1',
    });
  });
});

describe('Function: recordAwsCalls', () => {
  it('records each call with the function name of its async context, before it is sent', async () => {
    const calls: AwsCallRecord[] = [];
    const client = recordAwsCalls(
      new SNSClient({
        endpoint: fake.url,
        region: 'eu-west-1',
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      }),
      (call) => calls.push(call),
    );
    await withFunctionName('deliver', () =>
      client.send(new PublishCommand({ TopicArn: 'arn:aws:sns:eu-west-1:123456789012:t', Message: 'm' })),
    );
    expect(calls).toEqual([
      {
        fn: 'deliver',
        client: 'SNSClient',
        command: 'Publish',
        ids: { TopicArn: 'arn:aws:sns:eu-west-1:123456789012:t' },
      },
    ]);
  });
});
