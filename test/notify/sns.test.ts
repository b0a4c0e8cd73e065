import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { declaredApprovers, snsNotifier, snsOwnerNotifier } from '../../shared/notify/index.ts';
import { forEveryOwner, notice, ownerNotice } from './fixtures.ts';
import { type SnsWire, startSnsWire } from './sns-wire.ts';

let wire: SnsWire;
beforeAll(async () => {
  wire = await startSnsWire();
});
afterAll(() => wire.close());
beforeEach(() => {
  wire.calls.length = 0;
  wire.failWith = undefined;
});

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:wf-approval-notices';
const OWNER_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:wf-owner-notices';

describe('snsNotifier', () => {
  it('publishes one awsQuery Publish to the topic with subject, body, link and the approver and owner attributes', async () => {
    await snsNotifier(wire.client, TOPIC, forEveryOwner('boss@example.com')).notify(notice());

    expect(wire.calls).toHaveLength(1);
    const { params, contentType } = wire.calls[0]!;
    expect(contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(params.get('Action')).toBe('Publish');
    expect(params.get('Version')).toBe('2010-03-31');
    expect(params.get('TopicArn')).toBe(TOPIC);
    expect(params.get('Subject')).toBe('[team-a] Approval needed: notes_append (release-notes)');
    const message = params.get('Message')!;
    expect(message).toContain('Owner:      team-a (who asks)');
    expect(message).toContain('https://approve.example.com/approvals/apr_0123456789?t=eyJhcHByb3Zh.c2ln');
    expect(message).toContain('Workflow:   release-notes');
    expect(message).toContain('Run:        run_abc123');
    expect(message).toContain('{"name":"deploy-log","line":"ship v2"}');
    expect(message).toContain('2026-11-30T07:10:00.000Z');
    expect(params.get('MessageAttributes.entry.1.Name')).toBe('approver');
    expect(params.get('MessageAttributes.entry.1.Value.DataType')).toBe('String');
    // Lower-cased, as the subscriptions' filter policies list the approvers.
    expect(params.get('MessageAttributes.entry.1.Value.StringValue')).toBe('boss@example.com');
    // The run's owner, exactly: the subscription accepts only the owners the approver was declared for.
    expect(params.get('MessageAttributes.entry.2.Name')).toBe('owner');
    expect(params.get('MessageAttributes.entry.2.Value.StringValue')).toBe('team-a');
  });

  it('keeps the subject within SNS rules: printable ASCII, one line, under 100 characters', async () => {
    await snsNotifier(wire.client, TOPIC, forEveryOwner('boss@example.com')).notify(
      notice({ workflowName: `Release ✨ notes\n${'x'.repeat(200)}` }),
    );

    const subject = wire.calls[0]!.params.get('Subject')!;
    expect(subject.length).toBeLessThan(100);
    expect(subject).toMatch(/^[\x20-\x7e]+$/);
    expect(subject.startsWith('[team-a] Approval needed: notes_append (Release ? notes?')).toBe(true);
  });

  it('rejects when SNS answers an error, so the caller knows the approver was not told', async () => {
    wire.failWith = { status: 400, code: 'InvalidParameter' };

    await expect(
      snsNotifier(wire.client, TOPIC, forEveryOwner('boss@example.com')).notify(notice()),
    ).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });
  });
});

describe('snsNotifier reach', () => {
  it('reaches only the declared approvers, each for their owners, compared as the filter policies compare them', () => {
    const notifier = snsNotifier(
      wire.client,
      TOPIC,
      declaredApprovers('sns', { 'Boss@Example.com ': ['team-a'], 'ops@example.com': ['*'] }),
    );

    expect(notifier.reaches('boss@example.com', 'team-a')).toBe(true);
    expect(notifier.reaches('boss@example.com', 'team-b')).toBe(false);
    expect(notifier.reaches(' OPS@example.com', 'team-b')).toBe(true);
    expect(notifier.reaches('eve@example.com', 'team-a')).toBe(false);
    expect(
      snsNotifier(wire.client, TOPIC, declaredApprovers('sns', {})).reaches('boss@example.com', 'team-a'),
    ).toBe(false);
  });

  it("refuses to publish a notice to an approver not declared for the notice's owner, whoever calls it", async () => {
    const notifier = snsNotifier(
      wire.client,
      TOPIC,
      declaredApprovers('sns', { 'boss@example.com': ['team-a'] }),
    );

    await expect(notifier.notify(notice({ owner: 'team-b' }))).rejects.toMatchObject({
      name: 'ApproverNotDeclaredError',
    });
    expect(wire.calls).toEqual([]);
  });
});

describe('snsOwnerNotifier', () => {
  it('publishes an owner notice with the owner and kind attributes, the reason and the run link, no approval link', async () => {
    await snsOwnerNotifier(wire.client, OWNER_TOPIC).notifyOwner(ownerNotice());

    expect(wire.calls).toHaveLength(1);
    const { params } = wire.calls[0]!;
    expect(params.get('TopicArn')).toBe(OWNER_TOPIC);
    expect(params.get('Subject')).toBe('Run failed: release-notes');
    const attributes = Object.fromEntries(
      [1, 2].map((i) => [
        params.get(`MessageAttributes.entry.${i}.Name`),
        params.get(`MessageAttributes.entry.${i}.Value.StringValue`),
      ]),
    );
    // The owner id as the API identifies it (case kept): subscriptions filter on it exactly.
    expect(attributes).toEqual({ owner: '123456789012:role:CI', kind: 'run_failed' });
    const message = params.get('Message')!;
    expect(message).toContain('Status:     failed (error)');
    expect(message).toContain('https://api.example.com/v1/runs/run_abc123');
    expect(message).toContain('ModelServerError: the model is down');
    expect(message).not.toMatch(/approvals\/|[?&]t=/);
  });
});
