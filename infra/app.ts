/**
 * The CDK app (`npx cdk synth|deploy`): one `WorkflowRuntimeStack`, checked by cdk-nag (AwsSolutions).
 * Settings come from context (infra/context.ts, docs/deploy.md).
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { settingsFromContext } from './context.ts';
import { WorkflowRuntimeStack } from './workflow-runtime-stack.ts';

const app = new App();
const { stackName, runtime } = settingsFromContext(app.node);
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;
new WorkflowRuntimeStack(app, stackName, {
  runtime,
  // Environment-agnostic when the CLI has no credentials (offline synth); pinned to the caller's otherwise.
  ...(account !== undefined && region !== undefined ? { env: { account, region } } : {}),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
