/**
 * Test helpers: synthesize the runtime stack fast (no bundling, no built-in template validation), flatten
 * CloudFormation intrinsics so `Match.serializedJson` can read the state machine definition, and run cdk-nag.
 */
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { cdkJsonContext } from '../../infra/cdk-context.ts';
import type { WorkflowRuntimeProps } from '../../infra/constructs/workflow-runtime.ts';
import { WorkflowRuntimeStack, type WorkflowRuntimeStackProps } from '../../infra/workflow-runtime-stack.ts';

/** A synthesized runtime stack. */
export interface SynthesizedRuntime {
  app: App;
  stack: WorkflowRuntimeStack;
  template: Template;
}

/** An App with cdk.json's feature flags that skips bundling (stand-in assets) and built-in template validation. */
export function fastApp(): App {
  return new App({
    context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: false,
  });
}

/** Synthesizes a `WorkflowRuntimeStack` with the given runtime props. */
export function synthRuntime(
  runtime?: WorkflowRuntimeProps,
  stackProps: WorkflowRuntimeStackProps = {},
): SynthesizedRuntime {
  const app = fastApp();
  const stack = new WorkflowRuntimeStack(app, 'WfTest', {
    ...stackProps,
    ...(runtime === undefined ? {} : { runtime }),
  });
  return { app, stack, template: Template.fromStack(stack) };
}

let defaultSynth: SynthesizedRuntime | undefined;

/**
 * The default runtime stack (`synthRuntime()`), synthesized once and shared by every caller in the process:
 * read it, never add to it. A synth is seconds of CPU; the default stack is read by many files and tests.
 */
export function defaultRuntime(): SynthesizedRuntime {
  defaultSynth ??= synthRuntime();
  return defaultSynth;
}

/** The logical id of an L2 construct's default child (or of a CfnElement). */
export function logicalId(construct: IConstruct): string {
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  return Stack.of(construct).getLogicalId(element);
}

/**
 * A copy of the template where `Fn::Join` becomes a string and `Ref`/`Fn::GetAtt` become `${Id}`/`${Id.Attr}`,
 * so a `DefinitionString` built by `Fn::Join` is plain JSON text again.
 */
export function flattenIntrinsics(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(flattenIntrinsics);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  if ('Fn::Join' in record) {
    const [delimiter, parts] = record['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => String(flattenIntrinsics(part))).join(delimiter);
  }
  if ('Ref' in record && Object.keys(record).length === 1) return `\${${String(record.Ref)}}`;
  if ('Fn::GetAtt' in record) {
    const [id, attribute] = record['Fn::GetAtt'] as [string, string];
    return `\${${id}.${attribute}}`;
  }
  return Object.fromEntries(Object.entries(record).map(([key, each]) => [key, flattenIntrinsics(each)]));
}

/** The template with intrinsics flattened (see `flattenIntrinsics`). */
export function flatTemplate(template: Template): Template {
  return Template.fromJSON(flattenIntrinsics(template.toJSON()) as Record<string, unknown>);
}

/** cdk-nag AwsSolutions findings left unacknowledged, as `rule at path` strings. */
export function nagFindings(app: App): string[] {
  const report = new AwsSolutionsChecks().validateScope(app);
  return report.violations.flatMap((violation) =>
    violation.violatingResources.map(
      (resource) => `${violation.ruleName} at ${resource.constructPath ?? '?'}`,
    ),
  );
}
