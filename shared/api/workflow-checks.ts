/**
 * Every save-time check of a definition beyond its schema, for every kind and for drafts alike: each refusal
 * is a 400 naming the field, and nothing is written.
 */
import { foreignCredentialRefs } from '../credentials/owner-check.ts';
import { alertTopicsFor, mayUseAlertTopic } from '../notify/alert-topics.ts';
import type { AnyWorkflowDefinition } from '../schemas/any-workflow.ts';
import type { Destination } from '../schemas/destination.ts';
import { type EventPattern, stampedPatternSizeIssue } from '../triggers/index.ts';
import { checkApproversReachable } from './approver-reach.ts';
import type { ApiDeps } from './deps.ts';
import { invalid } from './errors.ts';
import { checkExternalDefinition } from './external-checks.ts';

/** An event pattern must fit EventBridge's size quota as the rule sends it: with this owner's stamp added. */
function checkStampedPattern(definition: AnyWorkflowDefinition, owner: string): void {
  if (definition.trigger.type !== 'event') return;
  const issue = stampedPatternSizeIssue(definition.trigger.pattern as EventPattern, owner);
  if (issue)
    throw invalid([{ path: 'trigger.pattern', message: issue.message }], 'invalid workflow definition');
}

/**
 * An alert topic must be one the deployment declares for this owner: Deliver may publish to declared topics
 * only (IAM), and a topic declared for some owners is theirs (alert-topics.ts). Refused at save time, naming
 * the field; a topic declared for other owners answers exactly as an undeclared one, and the refusal lists
 * only the topics this owner may name (never another owner's).
 */
function checkAlertTopic(
  deps: DefinitionCheckDeps,
  owner: string,
  definition: { destination: Destination },
): void {
  const { destination } = definition;
  if (destination.type !== 'alert' || destination.topicArn === undefined) return;
  const policy = { declared: deps.alertTopicArns ?? [], owners: deps.alertTopicOwners };
  if (mayUseAlertTopic(policy, owner, destination.topicArn)) return;
  const allowed = alertTopicsFor(policy, owner);
  throw invalid([
    {
      path: 'destination.topicArn',
      message:
        allowed.length === 0
          ? 'this deployment declares no alert topics for you: omit topicArn to use the default alert topic'
          : `must be one of the alert topics this deployment declares for you: ${allowed.join(', ')}`,
    },
  ]);
}

/** A definition may refer only to the owner's own credential secrets: a 400 naming each foreign one. */
function checkCredentialOwnership(
  deps: DefinitionCheckDeps,
  owner: string,
  definition: AnyWorkflowDefinition,
): void {
  const fields = foreignCredentialRefs(deps.credentialNamePrefix ?? 'wf/', owner, definition.credRefs);
  if (fields.length > 0) throw invalid(fields, 'invalid workflow definition');
}

/** What the save-time checks read: the deployment's alert topics, credential prefix, approvers and engines. */
export type DefinitionCheckDeps = Pick<
  ApiDeps,
  'alertTopicArns' | 'alertTopicOwners' | 'credentialNamePrefix' | 'approverReach' | 'externalEngines'
>;

/** Every save-time check beyond the schema: each refusal is a 400 naming the field, and nothing is written. */
export function checkDefinition(
  deps: DefinitionCheckDeps,
  owner: string,
  definition: AnyWorkflowDefinition,
): void {
  checkStampedPattern(definition, owner);
  checkAlertTopic(deps, owner, definition);
  checkCredentialOwnership(deps, owner, definition);
  checkApproversReachable(definition, deps.approverReach, owner);
  checkExternalDefinition(deps, definition);
}
