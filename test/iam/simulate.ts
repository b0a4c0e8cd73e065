/** Evaluates IAM requests with @cloud-copilot/iam-simulate, and finds grants no request used. */
import { runSimulation, runUnsafeSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import { ACCOUNT, asList, type PolicyDocument, type Statement } from './policies.ts';

export type Decision = 'Allowed' | 'ExplicitlyDenied' | 'ImplicitlyDenied' | `error: ${string}`;

/**
 * Step Functions authorizes `SendTask*` against the state machine of the waiting execution (AccessDenied
 * names `…:stateMachine:<name>`: NOAA-OWP/hydrovis#837; a grant on the state machine works: aws/aws-cdk#8486;
 * the evidence is recorded in sar-resource-types.test.ts), although the
 * Service Authorization Reference lists no resource type for these actions
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html), so
 * iam-simulate's request validation would demand `*`. These are evaluated without that validation.
 */
const AUTHORIZED_ON_STATE_MACHINE = new Set([
  'states:SendTaskSuccess',
  'states:SendTaskFailure',
  'states:SendTaskHeartbeat',
]);

/**
 * The global keys AWS sets for a role session (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-principalarn):
 * `aws:PrincipalArn` is the role's ARN, not the session's. iam-simulate does not fill them in itself.
 */
function principalContext(principal: string): Record<string, string> {
  const session = /^arn:aws:sts::(\d{12}):assumed-role\/([^/]+)\//.exec(principal);
  if (!session) return {};
  return {
    'aws:PrincipalArn': `arn:aws:iam::${session[1]}:role/${session[2]}`,
    'aws:PrincipalAccount': session[1]!,
    'aws:PrincipalType': 'AssumedRole',
  };
}

export async function decide(args: {
  principal: string;
  action: string;
  resource: string;
  context?: Record<string, string | string[]>;
  identityPolicies?: { name: string; policy: PolicyDocument }[];
  resourcePolicy?: PolicyDocument | undefined;
}): Promise<Decision> {
  const simulation: Simulation = {
    request: {
      principal: args.principal,
      action: args.action,
      resource: { resource: args.resource, accountId: ACCOUNT },
      // Lambda calls AWS over TLS.
      contextVariables: {
        'aws:SecureTransport': 'true',
        ...principalContext(args.principal),
        ...args.context,
      },
    },
    identityPolicies: args.identityPolicies ?? [],
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    ...(args.resourcePolicy ? { resourcePolicy: args.resourcePolicy } : {}),
  };
  if (AUTHORIZED_ON_STATE_MACHINE.has(args.action)) return runUnsafeSimulation(simulation, {});
  const response = await runSimulation(simulation, {});
  if (response.resultType === 'error') return `error: ${JSON.stringify(response.errors)}`;
  return response.overallResult as Decision;
}

/** IAM action matching: case-insensitive, `*` and `?` wildcards. */
export function actionMatches(pattern: string, action: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('')}$`,
    'i',
  );
  return regex.test(action);
}

/** The `Allow` actions of some policies, with the policy that grants each. */
export function grantedActions(policies: { name: string; policy: PolicyDocument }[]): string[] {
  const actions = policies.flatMap(({ policy }) =>
    policy.Statement.filter((s: Statement) => s.Effect === 'Allow').flatMap((s) => asList(s.Action)),
  );
  return [...new Set(actions)].sort();
}
