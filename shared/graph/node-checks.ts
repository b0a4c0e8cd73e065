/**
 * Per-node checks: templates and context expressions (over upstream steps only), structured-output schemas and
 * forms (valid JSON Schema, supported field kinds), agent_task allow-sets and gates (the same rules as an agent
 * workflow, action-checks.ts), service_task actions, and external_task payloads, result schemas and credential
 * slots (whether the deployment enables the engine is a save-time check against the registry: shared/api).
 */

import { withoutPatterns } from '../regex/schema-patterns.ts';
import {
  allowedActionIssues,
  type CheckIssue,
  gateIssues,
  irreversibleIssues,
} from '../schemas/action-checks.ts';
import { isBuiltinActionName } from '../schemas/builtin-actions.ts';
import type { GraphDefinitionShape } from './definition.ts';
import { checkExpression, checkTemplate, type ExpressionSite } from './expression-checks.ts';
import { formSchema, readForm } from './form.ts';
import { compileJsonSchema } from './json-schemas.ts';
import { nodeLabel } from './structure.ts';
import { templateStrings } from './template.ts';

type Node = GraphDefinitionShape['nodes'][number];

function schemaIssues(schema: Record<string, unknown>, path: PropertyKey[], label: string): CheckIssue[] {
  const compiled = compileJsonSchema(schema);
  if (!compiled.ok)
    return [{ path: [...path, ...(compiled.at ?? [])], message: `${label}: ${compiled.message}` }];
  if (schema.type !== 'object')
    return [{ path, message: `${label}: a structured output is a JSON Schema with type 'object'` }];
  return [];
}

function humanTaskIssues(
  definition: GraphDefinitionShape,
  node: Extract<Node, { type: 'human_task' }>,
  at: PropertyKey[],
  site: ExpressionSite,
): CheckIssue[] {
  const label = nodeLabel(node.id);
  const form = readForm(node.form);
  const issues: CheckIssue[] = form.ok
    ? []
    : form.issues.map((issue) => ({
        path: [...at, 'form', ...issue.path],
        message: `${label}: ${issue.message}`,
      }));
  const compiled = compileJsonSchema(formSchema(node.form));
  if (!compiled.ok)
    issues.push({
      path: [...at, 'form', ...(compiled.at ?? [])],
      message: `${label}: the form ${compiled.message}`,
    });
  node.context.forEach((source, index) => {
    issues.push(...checkExpression(definition, { ...site, path: [...at, 'context', index] }, source));
  });
  // The timeout output is checked for everything but `pattern`: the save check runs no owner regex (the
  // linear-time engine is in the run-time bundles only; V8's RegExp could backtrack without end).
  const unpatterned = compiled.ok
    ? compileJsonSchema(withoutPatterns(formSchema(node.form)) as Record<string, unknown>)
    : compiled;
  if (
    unpatterned.ok &&
    node.onTimeout.action === 'continue' &&
    !unpatterned.validate(node.onTimeout.output)
  ) {
    const detail = unpatterned.validate.errors?.[0];
    issues.push({
      path: [...at, 'onTimeout', 'output'],
      message:
        `${label}: the timeout output does not match the form: ${detail?.instancePath || '/'} ${detail?.message ?? ''}`.trim(),
    });
  }
  return issues;
}

function agentTaskIssues(
  definition: GraphDefinitionShape,
  node: Extract<Node, { type: 'agent_task' }>,
  at: PropertyKey[],
): CheckIssue[] {
  const allowed = new Set(node.allowedActions);
  const label = nodeLabel(node.id);
  const issues = [
    ...allowedActionIssues(node.allowedActions, definition.connectors, [...at, 'allowedActions']),
    ...gateIssues({
      gates: node.gates,
      approvals: definition.approvals,
      at: [...at, 'gates'],
      covers: (name) => allowed.has(name),
      uncovered: (name) => `gate for '${name}', which is not in this node's allowedActions`,
    }),
    ...irreversibleIssues({
      actions: node.allowedActions,
      connectors: definition.connectors,
      gates: node.gates,
      approvals: definition.approvals,
      at: (name) => [...at, 'allowedActions', node.allowedActions.indexOf(name)],
    }),
  ].map((issue) => ({ ...issue, message: `${label}: ${issue.message}` }));
  if (node.output) issues.push(...schemaIssues(node.output, [...at, 'output'], label));
  return issues;
}

function externalTaskIssues(
  definition: GraphDefinitionShape,
  node: Extract<Node, { type: 'external_task' }>,
  at: PropertyKey[],
  site: ExpressionSite,
): CheckIssue[] {
  const label = nodeLabel(node.id);
  const issues: CheckIssue[] = [];
  if (node.credential !== undefined && !(node.credential in definition.credRefs))
    issues.push({
      path: [...at, 'credential'],
      message: `${label}: credential slot '${node.credential}' is not declared in credRefs`,
    });
  if (node.output) issues.push(...schemaIssues(node.output, [...at, 'output'], label));
  for (const { path, text } of templateStrings(node.payload)) {
    issues.push(...checkTemplate(definition, { ...site, path: [...at, 'payload', ...path] }, text));
  }
  return issues;
}

function serviceTaskIssues(
  definition: GraphDefinitionShape,
  node: Extract<Node, { type: 'service_task' }>,
  at: PropertyKey[],
  site: ExpressionSite,
): CheckIssue[] {
  const label = nodeLabel(node.id);
  const issues: CheckIssue[] = [];
  if (!isBuiltinActionName(node.action) && !(node.action in definition.connectors)) {
    issues.push({
      path: [...at, 'action'],
      message: `${label}: '${node.action}' is neither a built-in action nor a connector defined in connectors`,
    });
  }
  issues.push(
    ...irreversibleIssues({
      actions: [node.action],
      connectors: definition.connectors,
      gates: definition.gates,
      approvals: definition.approvals,
      at: () => [...at, 'action'],
    }).map((issue) => ({ ...issue, message: `${label}: '${node.action}' ${issue.message}` })),
  );
  for (const { path, text } of templateStrings(node.args)) {
    issues.push(...checkTemplate(definition, { ...site, path: [...at, 'args', ...path] }, text));
  }
  return issues;
}

/** The issues of one node; `upstream` are the steps that have settled before it runs (its ancestors). */
export function nodeIssues(
  definition: GraphDefinitionShape,
  index: number,
  upstream: Set<string>,
): CheckIssue[] {
  const node = definition.nodes[index]!;
  const at = ['nodes', index];
  const site: ExpressionSite = { path: at, label: nodeLabel(node.id), upstream, what: `node '${node.id}'` };
  switch (node.type) {
    case 'agent_task':
      return [
        ...agentTaskIssues(definition, node, at),
        ...checkTemplate(definition, { ...site, path: [...at, 'prompt'] }, node.prompt),
      ];
    case 'service_task':
      return serviceTaskIssues(definition, node, at, site);
    case 'human_task':
      return humanTaskIssues(definition, node, at, site);
    case 'external_task':
      return externalTaskIssues(definition, node, at, site);
    default:
      return [];
  }
}
