/**
 * Save-time check of approvers: every approver a workflow names must be deliverable by this deployment, or
 * an approval request would reach nobody and be denied at run time. On AWS that is the approver list the
 * CDK subscribed to the approval topic; locally every approver is deliverable (the inbox and the terminal).
 */
import type { ApproverReach } from '../notify/reach.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import type { FieldError } from '../workflow-file/errors.ts';
import { invalid } from './errors.ts';

/** One field error per approver that `reach` cannot deliver to, naming its path. */
export function unreachableApprovers(definition: WorkflowDefinition, reach: ApproverReach): FieldError[] {
  const lists: (readonly [string, readonly string[]])[] = [
    ...(definition.approvals ? [['approvals.approvers', definition.approvals.approvers] as const] : []),
    ...Object.entries(definition.gates ?? {}).flatMap(([action, gate]) =>
      typeof gate === 'object' && gate.approvers
        ? [[`gates.${action}.approvers`, gate.approvers] as const]
        : [],
    ),
  ];
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
export function checkApproversReachable(definition: WorkflowDefinition, reach: ApproverReach | undefined) {
  if (reach === undefined) return;
  const fields = unreachableApprovers(definition, reach);
  if (fields.length > 0) throw invalid(fields, 'undeliverable approvers');
}
