/**
 * The `alert` destination on SNS, through the real SDK against a loopback stand-in: the subject is made valid
 * for Publish (ASCII, no control characters, under 100 characters), undeclared topics are refused without a
 * call, and a failed publish becomes a refusal that says why (so Deliver records it instead of failing).
 * Owners: every alert carries the run's owner as the `owner` message attribute (before the fix it carried
 * none, so no subscription could take one owner's alerts only), and a topic declared for some owners is
 * refused for another owner's run at delivery, as an undeclared one is (before the fix any owner's run
 * published to it).
 */
import { SNSClient } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActionCatalog } from '../../shared/actions/index.ts';
import { DeliveryRefusedError } from '../../shared/core/deliver.ts';
import {
  SNS_MESSAGE_CUT_NOTE,
  SNS_MESSAGE_MAX_BYTES,
  SNS_SUBJECT_MAX,
  snsAttributeBytes,
  snsMessage,
  snsSubject,
} from '../../shared/notify/index.ts';
import { destinations } from '../../shared/runtime/destinations.ts';
import { type FakeAws, startFakeAws } from '../iam/fake-aws.ts';
import { noEgress, noSecrets } from '../support/engine.ts';
import { FixedClock, testStore } from '../support/store.ts';

const DEFAULT = 'arn:aws:sns:eu-west-1:123456789012:wf-alerts';
const DECLARED = 'arn:aws:sns:eu-west-1:123456789012:team-oncall';
/** Declared for alice's team only. */
const ALICES = 'arn:aws:sns:eu-west-1:123456789012:alice-team';
const owner = '123456789012:role:carol';
let fake: FakeAws;
let alerts: ReturnType<typeof destinations>;

beforeAll(async () => {
  fake = await startFakeAws();
  alerts = destinations({
    sns: new SNSClient({
      endpoint: fake.url,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    }),
    defaultTopicArn: DEFAULT,
    allowedTopicArns: [DECLARED, ALICES],
    topicOwners: { [ALICES]: ['alice'] },
    catalog: createActionCatalog({ notes: testStore() }),
    egress: noEgress,
    secrets: noSecrets,
    clock: new FixedClock(),
  });
});
afterAll(() => fake.close());

describe('Function: snsSubject', () => {
  it.each([
    ['a plain subject', 'Daily report: done', 'Daily report: done'],
    ['line breaks and tabs', 'one\ntwo\tthree\r\n', 'one two three'],
    ['non-ASCII and emoji', 'Größe 🚀 ok', 'Gr??e ? ok'],
    ['only blanks', ' \n ', 'Workflow notification'],
  ])('makes %s valid', (_name, input, expected) => {
    expect(snsSubject(input)).toBe(expected);
  });

  it('keeps a subject under 100 characters, cut on a character boundary', () => {
    const subject = snsSubject(`${'a'.repeat(98)}🚀🚀🚀`);
    expect(subject.length).toBeLessThanOrEqual(SNS_SUBJECT_MAX);
    expect(subject).toMatch(/^[\x20-\x7e]+$/);
    expect(subject.endsWith('...')).toBe(true);
    expect(snsSubject('x'.repeat(99))).toBe('x'.repeat(99));
  });
});

describe('Function: snsMessage', () => {
  const attributes = { owner: { DataType: 'String', StringValue: owner } };

  it('keeps a message that fits with its attributes and subject as it is', () => {
    const fits = 'x'.repeat(SNS_MESSAGE_MAX_BYTES - snsAttributeBytes(attributes) - 2);
    expect(snsMessage(fits, attributes, 'ok')).toBe(fits);
  });

  it('cuts a larger one on a character boundary, its attributes and subject counted, ending with a note', () => {
    // 'é' is 2 bytes: a cut inside one would leave half a character.
    const message = snsMessage('é'.repeat(200_000), attributes, 'subject');
    expect(message.endsWith(SNS_MESSAGE_CUT_NOTE)).toBe(true);
    expect(message.startsWith('é'.repeat(1000))).toBe(true);
    expect(message).not.toContain('\uFFFD');
    const bytes = Buffer.byteLength(message) + snsAttributeBytes(attributes) + 'subject'.length;
    expect(bytes).toBeLessThanOrEqual(SNS_MESSAGE_MAX_BYTES);
    expect(bytes).toBeGreaterThan(SNS_MESSAGE_MAX_BYTES - 2);
  });
});

describe('Method: alert', () => {
  // A run of many turns lists every action it took: its report can pass the 256 KiB a topic accepts, and
  // SNS then refuses the whole Publish (InvalidParameter). Before the fix the alert was refused so.
  it('publishes a report larger than SNS accepts, cut to fit with its owner attribute', async () => {
    const actions = Array.from({ length: 5000 }, (_, n) => `- fetch_page_${n}: completed`).join('\n');
    const report = `# Crawl\n\n## Actions taken\n\n${actions}\n${'ü'.repeat(100_000)}`;
    expect(Buffer.byteLength(report)).toBeGreaterThan(SNS_MESSAGE_MAX_BYTES);
    await expect(alerts.alert({ owner, subject: 'Crawl: run done', message: report })).resolves.toMatch(
      /^sns message /,
    );
    const published = fake.published.at(-1);
    expect(published?.attributes).toEqual({ owner });
    expect(published?.message.startsWith('# Crawl\n\n## Actions taken\n\n- fetch_page_0: completed')).toBe(
      true,
    );
    expect(published?.message.endsWith(SNS_MESSAGE_CUT_NOTE)).toBe(true);
    expect(
      Buffer.byteLength(published?.message ?? '') +
        snsAttributeBytes({ owner: { DataType: 'String', StringValue: owner } }),
    ).toBeLessThanOrEqual(SNS_MESSAGE_MAX_BYTES);
  });

  it('publishes to the default topic and to a declared one, with a valid subject', async () => {
    await alerts.alert({ owner, subject: `Run\ndone ${'z'.repeat(120)}`, message: 'body' });
    await alerts.alert({ owner, topicArn: DECLARED, subject: 'ok', message: 'body' });
    expect(fake.published.slice(-2).map((p) => [p.topicArn, p.subject.length <= 99])).toEqual([
      [DEFAULT, true],
      [DECLARED, true],
    ]);
  });

  it('refuses a topic the deployment does not declare, without publishing', async () => {
    const count = fake.published.length;
    await expect(
      alerts.alert({
        owner,
        topicArn: 'arn:aws:sns:eu-west-1:123456789012:other',
        subject: 's',
        message: 'm',
      }),
    ).rejects.toThrow(/destination.topicArn .* is not an alert topic this deployment declares/);
    expect(fake.published.length).toBe(count);
  });

  it("carries the run's owner as the owner message attribute, on the default and a declared topic", async () => {
    await alerts.alert({ owner: 'alice', subject: 's', message: 'm' });
    await alerts.alert({ owner: 'bob', topicArn: DECLARED, subject: 's', message: 'm' });
    expect(fake.published.slice(-2).map((p) => [p.topicArn, p.attributes])).toEqual([
      [DEFAULT, { owner: 'alice' }],
      [DECLARED, { owner: 'bob' }],
    ]);
  });

  it('publishes to a topic declared for some owners for those owners only', async () => {
    await alerts.alert({ owner: 'alice', topicArn: ALICES, subject: 's', message: 'm' });
    expect(fake.published.at(-1)).toMatchObject({ topicArn: ALICES, attributes: { owner: 'alice' } });
    const count = fake.published.length;
    await expect(
      alerts.alert({ owner: 'bob', topicArn: ALICES, subject: 's', message: 'm' }),
    ).rejects.toThrow(
      /destination.topicArn .*alice-team is not an alert topic this deployment declares for this owner/,
    );
    expect(fake.published.length).toBe(count);
  });

  it('turns a failed publish into a refusal that names the error', async () => {
    fake.forbiddenTopics.add(DECLARED);
    const attempt = alerts.alert({ owner, topicArn: DECLARED, subject: 's', message: 'm' });
    await expect(attempt).rejects.toBeInstanceOf(DeliveryRefusedError);
    await expect(attempt).rejects.toThrow(/publishing to .*team-oncall failed: AuthorizationError/);
    fake.forbiddenTopics.delete(DECLARED);
  });
});
