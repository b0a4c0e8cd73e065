/**
 * The credential secret prefix a stack derives from its name when its context sets none
 * (infra/constructs/deployment-names.ts): the default stack keeps the first release's `wf/`, any other stack gets
 * `wf-<stack>/`, so two stacks in one account never read each other's secrets. Shared with `wf owner-key --stack`.
 */
export const DEFAULT_STACK_NAME = 'WfRuntime';
export const DEFAULT_CREDENTIAL_SECRET_PREFIX = 'wf/';

export function derivedCredentialPrefix(stackName: string): string {
  return stackName === DEFAULT_STACK_NAME ? DEFAULT_CREDENTIAL_SECRET_PREFIX : `wf-${stackName}/`;
}
