/**
 * The state machine definition for the local stack: the same ASL the CDK app deploys, synthesized in-process
 * without bundling, with its CloudFormation intrinsics resolved and Lambda ARNs replaced by stable fake ones.
 * The local stack runs it with `aws-local-stepfunctions`, mapping each Task state to its handler module.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { cdkJsonContext } from './cdk-context.ts';
import {
  EXTERNAL_HANDLER_BY_STATE,
  GRAPH_HANDLER_BY_STATE,
  HANDLER_BY_STATE,
  type HandlerName,
} from './constructs/state-names.ts';
import { WorkflowRuntimeStack } from './workflow-runtime-stack.ts';

/** Pseudo parameters of the local stand-in account. */
export const LOCAL_PSEUDO = {
  'AWS::Partition': 'aws',
  'AWS::Region': 'local',
  'AWS::AccountId': '000000000000',
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::StackName': 'WfLocal',
} as const;

/** The fake ARN that stands for a handler's function in the local definition. */
export function localFunctionArn(handlerName: string): string {
  return `arn:aws:lambda:${LOCAL_PSEUDO['AWS::Region']}:${LOCAL_PSEUDO['AWS::AccountId']}:function:${handlerName}`;
}

/** A synthesized local definition: plain ASL plus which handler each Lambda-backed Task state calls. */
export interface LocalDefinition {
  /** The Amazon States Language definition, with no CloudFormation intrinsic left. */
  definition: object;
  /** Task state name → handler module name (`functions/<name>.ts`), e.g. `{ Turn: 'turn', … }`. */
  functionByState: Record<string, string>;
}

/** Synthesizes the runtime in-process (no bundling, no validation) and returns its run state machine, resolved. */
export function synthesizeLocalDefinition(): LocalDefinition {
  return synthesizeLocalDefinitions().run;
}

/** The run, graph and external machines of the runtime. */
export type LocalDefinitions = { run: LocalDefinition; graph: LocalDefinition; external: LocalDefinition };

/** The synthesis's result as JSON, once a process has synthesized (see `synthesizeLocalDefinitions`). */
let synthesized: string | undefined;

/**
 * The state machines of the runtime, from one in-process synthesis: the run, graph and external machines. A
 * process synthesizes at its first call only (seconds of CPU; cdk.json's context is read then) and every call
 * returns a fresh copy of that result, which its caller may change: a process that starts several local stacks
 * (tests, the crash test's stack process warmed before it starts one) pays the synthesis once.
 */
export function synthesizeLocalDefinitions(): LocalDefinitions {
  synthesized ??= JSON.stringify(synthesize());
  return JSON.parse(synthesized) as LocalDefinitions;
}

function synthesize(): LocalDefinitions {
  const outdir = mkdtempSync(join(tmpdir(), 'wf-local-cdk-'));
  try {
    const app = new App({
      outdir,
      context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] },
      builtinCloudFormationValidation: false,
    });
    const stack = new WorkflowRuntimeStack(app, 'WfLocal');
    const runtime = stack.runtime;
    const handlerByLogicalId = new Map<string, HandlerName>();
    for (const [name, fn] of Object.entries(runtime.functions)) {
      handlerByLogicalId.set(
        stack.getLogicalId(fn.function.node.defaultChild as CfnFunction),
        name as HandlerName,
      );
    }
    const template = app.synth().getStackByName(stack.stackName).template as {
      Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
    };
    const definitionOf = (machine: CfnStateMachine, expected: Record<string, string>): LocalDefinition => {
      const stateMachineId = stack.getLogicalId(machine);
      const definitionString = template.Resources[stateMachineId]?.Properties?.DefinitionString;
      if (definitionString === undefined) {
        throw new Error(`synthesizeLocalDefinition: no DefinitionString on resource ${stateMachineId}`);
      }
      const resolved = resolveIntrinsics(definitionString, handlerByLogicalId);
      if (typeof resolved !== 'string')
        throw new Error('synthesizeLocalDefinition: DefinitionString did not resolve to a string');
      const definition = JSON.parse(resolved) as { States: Record<string, Record<string, unknown>> };
      return { definition, functionByState: mapTaskStates(definition.States, expected) };
    };
    return {
      run: definitionOf(
        runtime.runStateMachine.stateMachine.node.defaultChild as CfnStateMachine,
        HANDLER_BY_STATE,
      ),
      graph: definitionOf(
        runtime.graphStateMachine.stateMachine.node.defaultChild as CfnStateMachine,
        GRAPH_HANDLER_BY_STATE,
      ),
      external: definitionOf(
        runtime.externalStateMachine.stateMachine.node.defaultChild as CfnStateMachine,
        EXTERNAL_HANDLER_BY_STATE,
      ),
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

function resolveIntrinsics(node: unknown, handlerByLogicalId: ReadonlyMap<string, HandlerName>): unknown {
  if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean' || node === null)
    return node;
  if (Array.isArray(node)) return node.map((each) => resolveIntrinsics(each, handlerByLogicalId));
  const record = node as Record<string, unknown>;
  const keys = Object.keys(record);
  const only = keys.length === 1 ? keys[0] : undefined;
  if (only === 'Fn::Join') {
    const [delimiter, parts] = record[only] as [string, unknown[]];
    return parts.map((part) => String(resolveIntrinsics(part, handlerByLogicalId))).join(delimiter);
  }
  if (only === 'Ref') {
    const ref = record.Ref as string;
    if (ref in LOCAL_PSEUDO) return LOCAL_PSEUDO[ref as keyof typeof LOCAL_PSEUDO];
    const handler = handlerByLogicalId.get(ref);
    if (handler !== undefined) return handler; // Ref of a function is its name.
    throw new Error(`synthesizeLocalDefinition: cannot resolve {"Ref": "${ref}"} locally`);
  }
  if (only === 'Fn::GetAtt') {
    const [logicalId, attribute] = record[only] as [string, string];
    const handler = handlerByLogicalId.get(logicalId);
    if (handler !== undefined && attribute === 'Arn') return localFunctionArn(handler);
    throw new Error(
      `synthesizeLocalDefinition: cannot resolve {"Fn::GetAtt": ["${logicalId}", "${attribute}"]} locally`,
    );
  }
  if (only?.startsWith('Fn::')) throw new Error(`synthesizeLocalDefinition: unsupported intrinsic ${only}`);
  return Object.fromEntries(keys.map((key) => [key, resolveIntrinsics(record[key], handlerByLogicalId)]));
}

function mapTaskStates(
  states: Record<string, Record<string, unknown>>,
  expected: Record<string, string>,
): Record<string, string> {
  const byArn = new Map<string, string>(
    Object.values(expected).map((handler) => [localFunctionArn(handler), handler]),
  );
  const functionByState: Record<string, string> = {};
  const visit = (level: Record<string, Record<string, unknown>>) => {
    for (const [name, state] of Object.entries(level)) {
      const processor = (state.ItemProcessor ?? state.Iterator) as { States?: typeof level } | undefined;
      if (processor?.States) visit(processor.States);
      if (state.Type !== 'Task') continue;
      const parameters = (state.Parameters ?? {}) as Record<string, unknown>;
      // Direct Lambda ARN (payloadResponseOnly) or lambda:invoke.waitForTaskToken with FunctionName.
      const target = byArn.get(String(state.Resource)) ?? byArn.get(String(parameters.FunctionName));
      if (target !== undefined) functionByState[name] = target;
    }
  };
  visit(states);
  for (const [state, handler] of Object.entries(expected)) {
    if (functionByState[state] !== handler) {
      throw new Error(
        `synthesizeLocalDefinition: state ${state} should call ${handler}, found ${functionByState[state]}`,
      );
    }
  }
  return functionByState;
}

/**
 * The definition adjusted for `aws-local-stepfunctions` 3.x, which resolves `TimeoutSecondsPath` against a
 * Task's input after `Parameters` (AWS resolves it against the state input). `RequestApproval` passes
 * `approvalTimeoutSeconds` in its `Payload`, so its path becomes `$.Payload.approvalTimeoutSeconds` there: same
 * value, same semantics. Nothing else changes. Returns a copy.
 */
export function adaptForAwsLocalStepFunctions(definition: object): object {
  const copy = structuredClone(definition) as { States: Record<string, Record<string, unknown>> };
  for (const state of Object.values(copy.States)) {
    const path = state.TimeoutSecondsPath;
    if (state.Type !== 'Task' || typeof path !== 'string' || !path.startsWith('$.')) continue;
    const field = path.slice(2);
    const payload = (state.Parameters as { Payload?: Record<string, unknown> } | undefined)?.Payload;
    if (payload?.[`${field}.$`] !== path) {
      throw new Error(
        `adaptForAwsLocalStepFunctions: TimeoutSecondsPath ${path} is not passed in the Payload; the local runner cannot read it.`,
      );
    }
    state.TimeoutSecondsPath = `$.Payload.${field}`;
  }
  return copy;
}
