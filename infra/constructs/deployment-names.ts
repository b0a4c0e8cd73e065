/**
 * The names a deployment must share with no other deployment in its account and Region: where its workflow
 * credentials live (the credential secret prefix, which the credential-reader role's resource pattern starts
 * with) and where its functions put their metrics (the CloudWatch namespace its alarms and dashboard read).
 * Two stacks with the same prefix would let each one's credential-reader role read the other's secrets of the
 * same owner; with the same namespace each one's alarms would count the other's metrics.
 *
 * Both are derived from the stack name unless given: the default stack (`WfRuntime`) keeps the names every
 * deployment had before (`wf/`, `WfRuntime`), so upgrading it moves nothing; any other stack gets its own
 * (`wf-<stack>/`, `WfRuntime/<stack>`). Stack names are unique per account and Region and hold only letters,
 * digits and hyphens (https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_CreateStack.html),
 * so `wf-<stack>/` is neither `wf/` nor a prefix of another stack's.
 */
import { Stack, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import {
  DEFAULT_CREDENTIAL_SECRET_PREFIX,
  DEFAULT_STACK_NAME,
  derivedCredentialPrefix,
} from '../../shared/credentials/stack-prefix.ts';

export { DEFAULT_CREDENTIAL_SECRET_PREFIX, DEFAULT_STACK_NAME };
/** The default stack's metrics namespace. */
export const DEFAULT_METRICS_NAMESPACE = 'WfRuntime';

/** A deployment's own names. */
export interface DeploymentNames {
  readonly credentialSecretPrefix: string;
  readonly metricsNamespace: string;
}

/** The names `scope`'s deployment uses: the given ones, else derived from its stack's name. */
export function deploymentNames(
  scope: Construct,
  given: {
    readonly credentialSecretPrefix?: string | undefined;
    readonly metricsNamespace?: string | undefined;
  },
): DeploymentNames {
  if (given.credentialSecretPrefix !== undefined && given.metricsNamespace !== undefined)
    return { credentialSecretPrefix: given.credentialSecretPrefix, metricsNamespace: given.metricsNamespace };
  const stackName = Stack.of(scope).stackName;
  if (Token.isUnresolved(stackName))
    throw new Error(
      `${scope.node.path}: the stack name is not known at synth (a nested stack?), so the deployment's names ` +
        "cannot be derived from it; set credentialSecretPrefix and metricsNamespace, e.g. 'wf-team-a/' and 'WfRuntime/team-a'.",
    );
  const isDefault = stackName === DEFAULT_STACK_NAME;
  return {
    credentialSecretPrefix: given.credentialSecretPrefix ?? derivedCredentialPrefix(stackName),
    metricsNamespace:
      given.metricsNamespace ??
      (isDefault ? DEFAULT_METRICS_NAMESPACE : `${DEFAULT_METRICS_NAMESPACE}/${stackName}`),
  };
}
