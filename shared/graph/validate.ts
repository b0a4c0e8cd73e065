/**
 * Save-time validation of a graph definition, run by GraphDefinitionSchema's `.superRefine`: one issue per
 * problem, each with a path naming the node (`nodes[3]`, the id in the message) or edge (`edges[2].when`).
 * The rules, with an example error for each: docs/graph-workflows.md, "Validation".
 */

import { addIssues, type CheckIssue, connectorIssues, gateIssues } from '../schemas/action-checks.ts';
import { agentOnlyDestinationIssues } from '../schemas/destination.ts';
import type * as z from '../zod.ts';
import { branchIssues } from './branches.ts';
import type { GraphDefinitionShape } from './definition.ts';
import { checkExpression } from './expression-checks.ts';
import { compileJsonSchema } from './json-schemas.ts';
import { nodeIssues } from './node-checks.ts';
import { edgeLabel, nodeLabel, reach, structureIssues } from './structure.ts';

/** A stored version must fit a DynamoDB item (400 KB, with the record around it). */
export const MAX_DEFINITION_BYTES = 256_000;
/** Bounds the work of the branch check (pairs of outgoing edges) and keeps graphs readable. */
export const MAX_OUTGOING_EDGES = 20;

function limitIssues(definition: GraphDefinitionShape): CheckIssue[] {
  const issues: CheckIssue[] = [];
  const bytes = Buffer.byteLength(JSON.stringify(definition), 'utf8');
  if (bytes > MAX_DEFINITION_BYTES) {
    issues.push({
      path: [],
      message: `the definition is ${bytes} bytes; the limit is ${MAX_DEFINITION_BYTES}`,
    });
  }
  definition.nodes.forEach((node, index) => {
    const out = definition.edges.filter((edge) => edge.from === node.id).length;
    if (out > MAX_OUTGOING_EDGES) {
      issues.push({
        path: ['nodes', index],
        message: `${nodeLabel(node.id)}: has ${out} outgoing edges; the limit is ${MAX_OUTGOING_EDGES}`,
      });
    }
  });
  return issues;
}

function workflowIssues(definition: GraphDefinitionShape): CheckIssue[] {
  const called = new Set(
    definition.nodes.flatMap((node) => (node.type === 'service_task' ? [node.action] : [])),
  );
  const issues = [
    ...connectorIssues(definition.connectors, definition.credRefs),
    ...agentOnlyDestinationIssues(definition.destination, 'graph'),
    ...gateIssues({
      gates: definition.gates,
      approvals: definition.approvals,
      at: ['gates'],
      covers: (name) => called.has(name),
      uncovered: (name) =>
        `gate for '${name}', which no service_task calls (agent_task nodes carry their own gates)`,
    }),
  ];
  const input = definition.input ? compileJsonSchema(definition.input) : undefined;
  if (input && !input.ok)
    issues.push({ path: ['input', ...(input.at ?? [])], message: `the input schema ${input.message}` });
  return issues;
}

/** Every problem of a graph definition whose fields already parsed. */
export function graphIssues(definition: GraphDefinitionShape): CheckIssue[] {
  const structure = structureIssues(definition);
  const limits = limitIssues(definition);
  const issues = [...limits, ...structure.issues];
  if (issues.length === 0) issues.push(...branchIssues(definition));
  const ancestors = new Map(definition.nodes.map((node) => [node.id, reach(node.id, structure.links.prev)]));
  definition.edges.forEach((edge, index) => {
    if (edge.when === undefined) return;
    const upstream = new Set([edge.from, ...(ancestors.get(edge.from) ?? [])]);
    const site = {
      path: ['edges', index, 'when'],
      label: edgeLabel(edge),
      upstream,
      what: `${edgeLabel(edge)}`,
    };
    issues.push(...checkExpression(definition, site, edge.when));
  });
  definition.nodes.forEach((node, index) => {
    issues.push(...nodeIssues(definition, index, ancestors.get(node.id) ?? new Set()));
  });
  return [...issues, ...workflowIssues(definition)];
}

/** The `.superRefine` of GraphDefinitionSchema. */
export function validateGraph(definition: GraphDefinitionShape, ctx: z.core.$RefinementCtx): void {
  addIssues(ctx, graphIssues(definition));
}
