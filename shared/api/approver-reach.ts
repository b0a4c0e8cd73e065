/**
 * Save-time check of approvers: every approver (and human-task assignee) a workflow names must be declared for
 * the saving owner, or the save is refused. On AWS that is the approvers the CDK subscribed to the approval
 * topic for this owner (`approvers: [{ email, owners }]`); an approver declared only for other owners is refused
 * exactly like one declared for nobody, so a refusal never says whom other owners use. Locally every approver
 * is deliverable (the inbox lists each owner only their own links). `requestApproval` checks again at send time.
 */
import type { ApproverReach } from '../notify/reach.ts';
import type { AnyWorkflowDefinition } from '../schemas/any-workflow.ts';
import type { Gate, GateMode } from '../schemas/gate.ts';
import type { FieldError } from '../workflow-file/errors.ts';
import { invalid } from './errors.ts';

type ApproverList = readonly [string, readonly string[]];

const gateApprovers = (at: string, gates: Record<string, GateMode | Gate>): ApproverList[] =>
  Object.entries(gates).flatMap(([action, gate]) =>
    typeof gate === 'object' && gate.approvers
      ? [[`${at}.${action}.approvers`, gate.approvers] as const]
      : [],
  );

/** What an agent's gates name: approval defaults and per-gate approvers (a workflow's, or a grant's jobs'). */
type GatedSpec = {
  approvals?: { approvers: readonly string[] } | undefined;
  gates?: Record<string, GateMode | Gate> | undefined;
};

/** The approval defaults and gate approvers of `spec`, each path under `at` (`grant.` for a grant). */
const gatedApprovers = (spec: GatedSpec, at = ''): ApproverList[] => [
  ...(spec.approvals ? [[`${at}approvals.approvers`, spec.approvals.approvers] as const] : []),
  ...gateApprovers(`${at}gates`, spec.gates ?? {}),
];

/**
 * Every list of people the deployment must reach for a definition: approval defaults and gate approvers, and in
 * a graph each agent_task's gate approvers and each human_task's assignees (they get signed links the same way).
 */
function approverLists(definition: AnyWorkflowDefinition): ApproverList[] {
  // An external workflow names no approvers: its engine does the work.
  if (definition.kind === 'external') return [];
  const lists = gatedApprovers(definition);
  if (definition.kind !== 'graph') return lists;
  definition.nodes.forEach((node, index) => {
    if (node.type === 'agent_task') lists.push(...gateApprovers(`nodes[${index}].gates`, node.gates));
    if (node.type === 'human_task') lists.push([`nodes[${index}].assignees`, node.assignees]);
  });
  return lists;
}

/** One field error per approver that `reach` cannot deliver to for `owner`, naming its path. */
export function unreachableApprovers(
  definition: AnyWorkflowDefinition,
  reach: ApproverReach,
  owner: string,
): FieldError[] {
  return unreachableIn(approverLists(definition), reach, owner);
}

/**
 * The same, for a delegation grant (its jobs gate actions as a workflow does): paths under `grant.`, the same
 * words as a workflow's refusal.
 */
export function unreachableGrantApprovers(
  grant: GatedSpec,
  reach: ApproverReach,
  owner: string,
): FieldError[] {
  return unreachableIn(gatedApprovers(grant, 'grant.'), reach, owner);
}

function unreachableIn(lists: ApproverList[], reach: ApproverReach, owner: string): FieldError[] {
  return lists.flatMap(([path, approvers]) =>
    approvers.flatMap((approver, i) =>
      reach.reaches(approver, owner)
        ? []
        : [
            {
              path: `${path}[${i}]`,
              message:
                `approver '${approver}' cannot be sent requests for this owner by this deployment (channel ` +
                `${reach.channel}: not an approver declared for this owner); the operator declares approvers ` +
                'per owner (CDK context approvers: {"<owner id>": ["<email>"]}) and deploys, or name one declared for you',
            },
          ],
    ),
  );
}

/** Throws a 400 naming each approver's field not declared for `owner`; nothing is written. */
export function checkApproversReachable(
  definition: AnyWorkflowDefinition,
  reach: ApproverReach | undefined,
  owner: string,
) {
  if (reach === undefined) return;
  const fields = unreachableApprovers(definition, reach, owner);
  if (fields.length > 0) throw invalid(fields, 'undeliverable approvers');
}
