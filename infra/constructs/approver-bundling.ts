/**
 * The approver declarations travel to the functions that check them compiled into their bundles, not in their
 * environment: Lambda holds at most 4 KB of environment variables per function
 * (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html), about 35 approvers' worth, while
 * a deployment may subscribe up to 200 (SNS's filter policies per topic, deploy-limits.ts). Bundled, the list
 * costs no call at cold start and no IAM, and a change rebuilds those functions' code, which CloudFormation
 * deploys as it deployed an environment change (docs/deploy.md, "Approvers").
 */
import type { IValidation } from 'constructs';
import type { ApprovalNotices } from './approval-notices.ts';
import { ENV } from './env-names.ts';
import type { RuntimeFunction } from './runtime-function.ts';
import type { HandlerName } from './state-names.ts';

/** The functions that check approvers: the API's two save paths and the two that send links. */
export const APPROVER_HANDLERS = [
  'api',
  'workflow-write',
  'request-approval',
  'human-task',
] as const satisfies readonly HandlerName[];

/** The `bundledConstants` of an approver-checking function: the declarations as JSON. */
export const approverConstants = (notices: ApprovalNotices): Record<string, string> => ({
  [ENV.approverOwners]: notices.approverOwnersJson,
});

/**
 * Refuses at synth a declaration the bundles do not hold: a function is bundled when it is constructed, so an
 * approver added later (`approvalNotices.addApprover`) would get a subscription but be refused by the API.
 */
export class ApproversBundled implements IValidation {
  private readonly notices: ApprovalNotices;
  private readonly functions: readonly RuntimeFunction[];

  constructor(notices: ApprovalNotices, functions: readonly RuntimeFunction[]) {
    this.notices = notices;
    this.functions = functions;
  }

  validate(): string[] {
    const declared = this.notices.approverOwnersJson;
    const stale = this.functions.filter((fn) => fn.bundledConstants[ENV.approverOwners] !== declared);
    if (stale.length === 0) return [];
    return [
      `the approver declarations changed after ${stale.map((fn) => fn.handlerName).join(', ')} were bundled ` +
        '(approvalNotices.addApprover after the runtime was built); their code would not know the new approvers. ' +
        'Declare every approver in the runtime props (approvers, or context approvers) instead.',
    ];
  }
}
