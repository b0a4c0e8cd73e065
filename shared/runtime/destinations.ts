/**
 * DestinationsPort adapters. `alert` publishes to SNS; `http` runs the named connector through the same
 * gate and egress guard as a model's call. A connector that the gate does not plainly allow (it needs
 * approval, e.g. an external publish) is not delivered to: delivery cannot wait for a human, so it fails
 * closed and says so.
 *
 * An alert goes to the deployment's default alert topic, or to `destination.topicArn` when that is one of the
 * topics the deployment declares (`alertTopics`: Deliver may publish to those only). Any failure to publish
 * (IAM, a missing topic, a KMS key policy) is final once the SDK's own retries are spent: the run records a
 * refused delivery saying why, instead of failing Deliver until the state machine gives up with no record.
 */
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { ActionCatalog } from '../core/actions.ts';
import { DeliveryRefusedError, type DestinationsPort } from '../core/deliver.ts';
import { effectiveGrant, evaluateGate, gateOf } from '../core/gate.ts';
import { idempotencyKeyFor } from '../core/identity.ts';
import type { Clock, EgressPort, SecretsPort } from '../core/ports.ts';
import { snsSubject } from '../notify/sns-subject.ts';

export function destinations(deps: {
  sns?: Pick<SNSClient, 'send'>;
  defaultTopicArn?: string;
  /** Topics a workflow may name in `destination.topicArn` (besides the default). @default none */
  allowedTopicArns?: readonly string[];
  catalog: ActionCatalog;
  egress: EgressPort;
  secrets: SecretsPort;
  clock: Clock;
}): DestinationsPort {
  return {
    async alert({ owner, topicArn, subject, message }) {
      const target = topicArn ?? deps.defaultTopicArn;
      if (!deps.sns || !target)
        throw new DeliveryRefusedError('no SNS topic is configured for alert destinations');
      if (
        topicArn !== undefined &&
        topicArn !== deps.defaultTopicArn &&
        !deps.allowedTopicArns?.includes(topicArn)
      )
        throw new DeliveryRefusedError(
          `destination.topicArn ${topicArn} is not an alert topic this deployment declares (alertTopics)`,
        );
      try {
        const response = await deps.sns.send(
          new PublishCommand({
            TopicArn: target,
            Subject: snsSubject(subject),
            Message: deps.secrets.redact(owner, message),
          }),
        );
        return `sns message ${response.MessageId ?? '?'}`;
      } catch (error) {
        const { name, message: text } = error as { name?: string; message?: string };
        throw new DeliveryRefusedError(
          `publishing to ${target} failed: ${name ?? 'Error'}: ${deps.secrets.redact(owner, String(text ?? '')).slice(0, 300)}`,
        );
      }
    },
    async http({ run, definition, action, payload }) {
      const own = gateOf(definition, action);
      // A `deny` gate on the destination's connector denies delivery, whether or not the model may call it.
      if (own.mode === 'deny')
        throw new DeliveryRefusedError(`delivery to '${action}' was denied: its gate is 'deny'`);
      const grant = effectiveGrant(definition, definition, true);
      // The destination connector need not be in allowedActions (the model never calls it), but its gate applies.
      if (!grant.has(action)) grant.set(action, own);
      const gate = evaluateGate({ name: action, input: payload }, grant, deps.catalog, {
        ...definition,
        allowedActions: [...definition.allowedActions, action],
      });
      if (gate.decision !== 'allow') {
        throw new DeliveryRefusedError(
          gate.decision === 'deny'
            ? `delivery to '${action}' was denied: ${gate.reason}`
            : `delivery to '${action}' needs approval, which a delivery cannot wait for`,
        );
      }
      const outcome = await gate.action.run(gate.input, {
        idempotencyKey: idempotencyKeyFor(run.runId, run.turn, `deliver-${action}`),
        egress: deps.egress,
        secrets: deps.secrets,
        clock: deps.clock,
        scope: { runId: run.runId, owner: run.owner, workflowId: run.workflowId },
      });
      if (outcome.isError)
        throw new DeliveryRefusedError(
          `delivery to '${action}' failed: ${deps.secrets.redact(run.owner, outcome.content).slice(0, 500)}`,
        );
      return deps.secrets.redact(run.owner, outcome.content).slice(0, 500);
    },
  };
}
