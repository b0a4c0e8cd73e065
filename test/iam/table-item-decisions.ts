/**
 * iam-simulate's decision on one item action of a function on the run table, as its role sends it: the
 * synthesized stack's policies (synthesized once, before the file's tests), with `dynamodb:LeadingKeys`, the
 * partition key values of the request, when given. Shared by the partition-scope checks
 * (delete-partitions.test.ts, write-partitions.test.ts).
 */
import { beforeAll } from 'vitest';
import type { HandlerName } from '../../infra/constructs/state-names.ts';
import { logicalId } from '../infra/synth.ts';
import { StackPolicies } from './policies.ts';
import { decide } from './simulate.ts';
import { synthForIam } from './stack.ts';
import { ACCOUNT } from './template.ts';

export type TableItemDecision = (
  fn: HandlerName,
  action: string,
  leadingKeys?: string[],
) => ReturnType<typeof decide>;

/** Call at a test file's top level: registers the synth in `beforeAll` and returns the decision. */
export function tableItemDecisions(): TableItemDecision {
  let policies: StackPolicies;
  let table: string;
  beforeAll(() => {
    const synth = synthForIam();
    policies = new StackPolicies(synth);
    table = policies.resolved.getAtt(logicalId(synth.stack.runtime.table.table), 'Arn');
  });
  return (fn, action, leadingKeys) => {
    const identity = policies.functionIdentity(fn);
    return decide({
      principal: `arn:aws:sts::${ACCOUNT}:assumed-role/${identity.roleArn.split('/').at(-1)}/${fn}`,
      action,
      resource: table,
      ...(leadingKeys ? { context: { 'dynamodb:LeadingKeys': leadingKeys } } : {}),
      identityPolicies: identity.policies,
    });
  };
}
