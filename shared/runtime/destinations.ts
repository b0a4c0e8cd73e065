/**
 * DestinationsPort adapters. `alert` publishes to SNS; `http` runs the named connector through the same
 * gate and egress guard as a model's call. A connector that the gate does not plainly allow (it needs
 * approval, e.g. an external publish) is not delivered to: delivery cannot wait for a human, so it fails
 * closed and says so.
 *
 * An alert goes to the deployment's default alert topic, or to `destination.topicArn` when that is one of the
 * topics the deployment declares (`alertTopics`: Deliver may publish to those only) for the run's owner (a
 * topic declared for other owners is refused here too: the definition may predate the declaration). Every
 * alert carries the run's owner as the `owner` message attribute, like an owner notice, so a subscription's
 * filter policy can take one owner's alerts only
 * (https://docs.aws.amazon.com/sns/latest/dg/sns-message-attributes.html,
 * https://docs.aws.amazon.com/sns/latest/dg/sns-subscription-filter-policies.html). Any failure to publish
 * (IAM, a missing topic, a KMS key policy) is final once the SDK's own retries are spent: the run records a
 * refused delivery saying why, instead of failing Deliver until the state machine gives up with no record.
 */
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { ActionCatalog } from '../core/actions.ts';
import { cutText } from '../core/byte-caps.ts';
import { DeliveryRefusedError, type DestinationsPort } from '../core/deliver.ts';
import { CredentialRefusedError, credentialFailure } from '../core/errors.ts';
import { connectorRedeclared, effectiveGrant, evaluateGate, gateOf } from '../core/gate.ts';
import { idempotencyKeyFor } from '../core/identity.ts';
import type { Clock, EgressPort, SecretsPort } from '../core/ports.ts';
import { unreadableCredential } from '../core/redacted-dispatch.ts';
import { type AlertTopicOwners, mayUseAlertTopic } from '../notify/alert-topics.ts';
import { snsMessage } from '../notify/sns-message.ts';
import { OWNER_ATTRIBUTE } from '../notify/sns-owner.ts';
import { snsSubject } from '../notify/sns-subject.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';

export function destinations(deps: {
  sns?: Pick<SNSClient, 'send'>;
  defaultTopicArn?: string;
  /** Topics a workflow may name in `destination.topicArn` (besides the default). @default none */
  allowedTopicArns?: readonly string[];
  /** Declared topics only some owners may name (alert-topics.ts). @default none: each is every owner's */
  topicOwners?: AlertTopicOwners;
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
      const declared = [
        ...(deps.defaultTopicArn === undefined ? [] : [deps.defaultTopicArn]),
        ...(deps.allowedTopicArns ?? []),
      ];
      // The same refusal for a topic declared for other owners as for an undeclared one: it names no owner.
      if (
        topicArn !== undefined &&
        !mayUseAlertTopic({ declared, owners: deps.topicOwners }, owner, topicArn)
      )
        throw new DeliveryRefusedError(
          `destination.topicArn ${topicArn} is not an alert topic this deployment declares for this owner (alertTopics)`,
        );
      try {
        const attributes = { [OWNER_ATTRIBUTE]: { DataType: 'String', StringValue: owner } };
        const validSubject = snsSubject(subject);
        const response = await deps.sns.send(
          new PublishCommand({
            TopicArn: target,
            Subject: validSubject,
            // Cut to what the topic accepts (sns-message.ts): a long run's report can be larger than 256 KiB.
            Message: snsMessage(deps.secrets.redact(owner, message), attributes, validSubject),
            MessageAttributes: attributes,
          }),
        );
        return `sns message ${response.MessageId ?? '?'}`;
      } catch (error) {
        const { name, message: text } = error as { name?: string; message?: string };
        throw new DeliveryRefusedError(
          `publishing to ${target} failed: ${name ?? 'Error'}: ${cutText(deps.secrets.redact(owner, String(text ?? '')), 300)}`,
        );
      }
    },
    async http({ run, definition, live, action, payload }) {
      const own = gateOf(definition, action);
      // A `deny` gate on the destination's connector denies delivery, whether or not the model may call it.
      if (own.mode === 'deny')
        throw new DeliveryRefusedError(`delivery to '${action}' was denied: its gate is 'deny'`);
      const withdrawn =
        liveDestinationRefusal(live, action) ??
        (live && connectorRedeclared(definition, live, action)
          ? "the workflow's latest version declares the connector differently (its URL, method, body or credential)"
          : undefined);
      if (withdrawn !== undefined)
        throw new DeliveryRefusedError(`delivery to '${action}' was denied: ${withdrawn}`);
      // The destination connector need not be in allowedActions (the model never calls it), but its gate
      // applies: the run's version's ∩ the live policy's (the latest version's, which must still deliver to
      // it: liveDestinationRefusal above), the stricter winning.
      const withDestination = (of: typeof definition) => ({
        ...of,
        allowedActions: [...of.allowedActions, action],
      });
      const grant = effectiveGrant(withDestination(definition), live && withDestination(live), true);
      if (!grant.has(action))
        throw new DeliveryRefusedError(
          `delivery to '${action}' was denied: the workflow's latest version denies or no longer has it`,
        );
      const gate = evaluateGate(
        { name: action, input: payload },
        grant,
        deps.catalog,
        withDestination(definition),
      );
      if (gate.decision !== 'allow') {
        throw new DeliveryRefusedError(
          gate.decision === 'deny'
            ? `delivery to '${action}' was denied: ${gate.reason}`
            : `delivery to '${action}' needs approval, which a delivery cannot wait for`,
        );
      }
      // The connector resolves its own slot only, yet its answer may carry any of the workflow's credentials:
      // all are resolved first, and the delivery is not sent while one cannot be (its answer could not be
      // redacted of it). A failure that may pass (throttling, the owner cap) is retried by the state machine;
      // one that never can (no such secret, access denied, outside the namespace) is a refused delivery.
      const unreadable = await unreadableCredential({
        credRefs: definition.credRefs,
        secrets: deps.secrets,
        owner: run.owner,
      });
      if (unreadable) {
        const failure = credentialFailure(unreadable.slot, unreadable.cause);
        if (failure instanceof CredentialRefusedError)
          throw new DeliveryRefusedError(`delivery to '${action}' was not sent: ${failure.message}`);
        throw failure;
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
          `delivery to '${action}' failed: ${cutText(deps.secrets.redact(run.owner, outcome.content), 500)}`,
        );
      return cutText(deps.secrets.redact(run.owner, outcome.content), 500);
    },
  };
}

/**
 * Why the latest version no longer delivers to `action`, or undefined when it still does: its destination must
 * be this same `http` connector, which it still declares. A latest version that dropped the connector, or sends
 * its results elsewhere (`stored`, `report`, `alert`, another connector), withdrew the delivery, as removing an
 * action from `allowedActions` withdraws it from running runs; the gates of both versions then still apply.
 */
function liveDestinationRefusal(live: WorkflowDefinition | undefined, action: string): string | undefined {
  if (live === undefined) return "the workflow's latest version is not an agent workflow that delivers to it";
  const { destination } = live;
  if (destination.type !== 'http' || destination.action !== action) {
    const now = destination.type === 'http' ? `connector '${destination.action}'` : `'${destination.type}'`;
    return `the workflow's latest version no longer delivers to it (its destination is ${now})`;
  }
  // Own keys only: a name such as 'constructor' must not find Object.prototype's.
  if (!Object.hasOwn(live.connectors ?? {}, action))
    return `the workflow's latest version no longer delivers to it (it no longer declares the connector)`;
  return undefined;
}
