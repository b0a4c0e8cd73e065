import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { snsNotifier } from '../../shared/notify/index.ts';
import { notice } from './fixtures.ts';
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

describe('snsNotifier', () => {
  it('publishes one awsQuery Publish to the topic with subject, body, link and the approver attribute', async () => {
    await snsNotifier(wire.client, TOPIC).notify(notice());

    expect(wire.calls).toHaveLength(1);
    const { params, contentType } = wire.calls[0]!;
    expect(contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(params.get('Action')).toBe('Publish');
    expect(params.get('Version')).toBe('2010-03-31');
    expect(params.get('TopicArn')).toBe(TOPIC);
    expect(params.get('Subject')).toBe('Approval needed: notes_append (release-notes)');
    const message = params.get('Message')!;
    expect(message).toContain('https://approve.example.com/approvals/apr_0123456789?t=eyJhcHByb3Zh.c2ln');
    expect(message).toContain('Workflow:   release-notes');
    expect(message).toContain('Run:        run_abc123');
    expect(message).toContain('{"name":"deploy-log","line":"ship v2"}');
    expect(message).toContain('2026-11-30T07:10:00.000Z');
    expect(params.get('MessageAttributes.entry.1.Name')).toBe('approver');
    expect(params.get('MessageAttributes.entry.1.Value.DataType')).toBe('String');
    // Lower-cased, as the subscriptions' filter policies list the approvers.
    expect(params.get('MessageAttributes.entry.1.Value.StringValue')).toBe('boss@example.com');
  });

  it('keeps the subject within SNS rules: printable ASCII, one line, under 100 characters', async () => {
    await snsNotifier(wire.client, TOPIC).notify(
      notice({ workflowName: `Release ✨ notes\n${'x'.repeat(200)}` }),
    );

    const subject = wire.calls[0]!.params.get('Subject')!;
    expect(subject.length).toBeLessThan(100);
    expect(subject).toMatch(/^[\x20-\x7e]+$/);
    expect(subject.startsWith('Approval needed: notes_append (Release ? notes?')).toBe(true);
  });

  it('rejects when SNS answers an error, so the caller knows the approver was not told', async () => {
    wire.failWith = { status: 400, code: 'InvalidParameter' };

    await expect(snsNotifier(wire.client, TOPIC).notify(notice())).rejects.toMatchObject({
      name: 'InvalidParameterException',
    });
  });
});
