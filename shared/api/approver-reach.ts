/**
 * Save-time check of approvers: every approver a workflow names must be deliverable by this deployment, or
 * an approval request would reach nobody and be denied at run time. On AWS that is the approver list the
 * CDK subscribed to the approval topic; locally every approver is deliverable (the inbox and the terminal).
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

/**
 * Every list of people the deployment must reach for a definition: approval defaults and gate approvers, and in
 * a graph each agent_task's gate approvers and each human_task's assignees (they get signed links the same way).
 */
function approverLists(definition: AnyWorkflowDefinition): ApproverList[] {
  // An external workflow names no approvers: its engine does the work.
  if (definition.kind === 'external') return [];
  const lists: ApproverList[] = [
    ...(definition.approvals ? [['approvals.approvers', definition.approvals.approvers] as const] : []),
    ...gateApprovers('gates', definition.gates ?? {}),
  ];
  if (definition.kind !== 'graph') return lists;
  definition.nodes.forEach((node, index) => {
    if (node.type === 'agent_task') lists.push(...gateApprovers(`nodes[${index}].gates`, node.gates));
    if (node.type === 'human_task') lists.push([`nodes[${index}].assignees`, node.assignees]);
  });
  return lists;
}

/** One field error per approver that `reach` cannot deliver to, naming its path. */
export function unreachableApprovers(definition: AnyWorkflowDefinition, reach: ApproverReach): FieldError[] {
  const lists = approverLists(definition);
  return lists.flatMap(([path, approvers]) =>
    approvers.flatMap((approver, i) =>
      reach.reaches(approver)
        ? []
        : [
            {
              path: `${path}[${i}]`,
              message:
                `approver '${approver}' cannot be sent approval requests by this deployment (channel ` +
                `${reach.channel}: not a subscribed approver); add the address to the deployment's approvers ` +
                '(CDK context approvers) and deploy, or name a subscribed approver',
            },
          ],
    ),
  );
}

/** Throws a 400 naming each undeliverable approver's field; nothing is written. */
export function checkApproversReachable(definition: AnyWorkflowDefinition, reach: ApproverReach | undefined) {
  if (reach === undefined) return;
  const fields = unreachableApprovers(definition, reach);
  if (fields.length > 0) throw invalid(fields, 'undeliverable approvers');
}
