/**
 * The CDK app (`npx cdk synth|deploy`): one `WorkflowRuntimeStack`, checked by cdk-nag (AwsSolutions).
 * Settings come from context (infra/context.ts, docs/deploy.md).
 */
import { statSync } from 'node:fs';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { templateSizeProblem } from './constructs/deploy-limits.ts';
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
// The template's size is known only once it is written (deploy-limits.ts); CDK uploads the file as is.
const problems = app
  .synth()
  .stacks.map((stack) => templateSizeProblem(stack.stackName, statSync(stack.templateFullPath).size))
  .filter((problem) => problem !== undefined);
if (problems.length > 0) throw new Error(problems.join('\n'));
