/**
 * Approvers are declared per owner, and the check is made again when notices go out (fail closed): a run whose
 * approver is declared only for another owner (a definition saved before the declaration changed, or a check
 * bypassed) sends that approver nothing, and the approval is denied as undeliverable.
 */
import { describe, expect, it } from 'vitest';
import { requestApproval } from '../../shared/approvals-http/request-approval.ts';
import { sfnTaskTokens } from '../../shared/approvals-http/task-tokens.ts';
import { declaredApprovers, snsNotifier } from '../../shared/notify/index.ts';
import { FixedClock } from '../support/store.ts';
import { BOSS, keyring, OPS, PUBLIC_BASE, parkRun, recordingLogger, store } from './support.ts';
import { useWires } from './wires.ts';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:notices';
const wires = useWires();

async function requestWith(declared: Record<string, string[]>, approvers: string[]) {
  const clock = new FixedClock();
  const parked = await parkRun(clock, approvers);
  wires.sns.calls.length = 0;
  const result = await requestApproval(
    {
      store,
      clock,
      keyring,
      publicBaseUrl: PUBLIC_BASE,
      notifier: snsNotifier(wires.sns.client, TOPIC, declaredApprovers('sns', declared)),
      taskTokens: sfnTaskTokens(wires.sfn.client, { sleep: async () => {} }),
      logger: recordingLogger(),
    },
    { runId: parked.run.runId, taskToken: 'token-owner' },
  );
  return { ...parked, result };
}

describe('requestApproval: approvers declared per owner', () => {
  it('sends nothing to an approver declared only for another owner: the approval is undeliverable', async () => {
    const { approval, result } = await requestWith({ [BOSS]: ['someone-else'] }, [BOSS]);

    expect(result).toMatchObject({ status: 'undeliverable', undeliverable: [approval.approvalId] });
    expect(wires.sns.calls).toEqual([]);
    expect((await store.getApproval(approval.approvalId))?.status).toBe('undeliverable');
  });

  it("notifies only the approver declared for the run's owner, naming that owner in the message", async () => {
    const clock = new FixedClock();
    const { run } = await parkRun(clock, [BOSS, OPS]);
    wires.sns.calls.length = 0;
    const notifier = snsNotifier(
      wires.sns.client,
      TOPIC,
      declaredApprovers('sns', { [BOSS]: [run.owner], [OPS]: ['someone-else'] }),
    );

    const result = await requestApproval(
      {
        store,
        clock,
        keyring,
        publicBaseUrl: PUBLIC_BASE,
        notifier,
        taskTokens: sfnTaskTokens(wires.sfn.client, { sleep: async () => {} }),
        logger: recordingLogger(),
      },
      { runId: run.runId, taskToken: 'token-half' },
    );

    expect(result).toMatchObject({ status: 'notified', notified: [{ approver: BOSS }] });
    expect(wires.sns.calls).toHaveLength(1);
    expect(wires.sns.calls[0]!.params.get('Message')).toContain(`Owner:      ${run.owner} (who asks)`);
    expect(wires.sns.calls[0]!.params.get('MessageAttributes.entry.2.Value.StringValue')).toBe(run.owner);
  });
});
