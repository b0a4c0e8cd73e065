/**
 * Save-time checks of conditions and templates: each expression parses (within the limits), reads only run
 * data (`input…`, `steps.<id>.status|output|timedOut…`), names only steps upstream of where it is evaluated,
 * and names only fields that exist when the input or the step's output declares a JSON Schema.
 */
import type { CheckIssue } from '../schemas/action-checks.ts';
import type { GraphDefinitionShape } from './definition.ts';
import { type CompiledExpression, compileExpression, type ExpressionError } from './expressions.ts';
import { missingField } from './json-schemas.ts';
import { dataReferences } from './references.ts';
import { STEP_DATA_FIELDS } from './run-data.ts';
import { compileTemplate, templateExpressions } from './template.ts';

/** Where an expression is evaluated: which steps have settled by then, and how to word its errors. */
export type ExpressionSite = { path: PropertyKey[]; label: string; upstream: Set<string>; what: string };

const describe = (error: ExpressionError) =>
  `${error.message} (${error.code}${error.position === undefined ? '' : ` at ${error.position}`})`;

/** The output JSON Schema a step declares: an agent_task's or external_task's `output`, a human_task's `form`. */
export function outputSchema(definition: GraphDefinitionShape, id: string): unknown {
  const node = definition.nodes.find((candidate) => candidate.id === id);
  if (node?.type === 'agent_task' || node?.type === 'external_task') return node.output;
  if (node?.type === 'human_task') return node.form;
  return undefined;
}

function referenceProblem(
  definition: GraphDefinitionShape,
  site: ExpressionSite,
  names: string[],
): string | undefined {
  const [root, step, field, ...rest] = names;
  if (root === 'input') {
    const missing = definition.input ? missingField(definition.input, names.slice(1)) : undefined;
    return missing ? `'input.${missing}' is not a field of the input schema` : undefined;
  }
  if (root !== 'steps') return `'${root}' is not run data: read input.… or steps.<id>.…`;
  if (step === undefined) return 'read one step: steps.<id>.output…';
  if (!definition.nodes.some((node) => node.id === step))
    return `'steps.${step}': there is no step '${step}'`;
  if (!site.upstream.has(step)) {
    return `'steps.${step}': step '${step}' is not upstream of ${site.what}, so it may not have run`;
  }
  if (field !== undefined && !(STEP_DATA_FIELDS as readonly string[]).includes(field)) {
    return `'steps.${step}.${field}': a step has only ${STEP_DATA_FIELDS.join(', ')}`;
  }
  if (field !== 'output') return undefined;
  const missing = missingField(outputSchema(definition, step), rest);
  return missing
    ? `'steps.${step}.output.${missing}' is not a field of the output schema of '${step}'`
    : undefined;
}

function expressionIssues(
  definition: GraphDefinitionShape,
  site: ExpressionSite,
  expression: CompiledExpression,
): CheckIssue[] {
  return dataReferences(expression.ast).flatMap((reference) => {
    const problem = referenceProblem(definition, site, reference.names);
    return problem ? [{ path: site.path, message: `${site.label}: ${problem}` }] : [];
  });
}

/** Checks one condition or context expression. */
export function checkExpression(
  definition: GraphDefinitionShape,
  site: ExpressionSite,
  source: string,
): CheckIssue[] {
  const compiled = compileExpression(source);
  if (!compiled.ok) {
    const refused = ['GRAPH_FORBIDDEN_FUNCTION', 'GRAPH_REGEX_UNSUPPORTED'].includes(compiled.error.code);
    const what = refused ? 'is refused' : 'does not parse';
    return [{ path: site.path, message: `${site.label}: ${what}: ${describe(compiled.error)}` }];
  }
  return expressionIssues(definition, site, compiled.value);
}

/** Checks one `{{ … }}` template. */
export function checkTemplate(
  definition: GraphDefinitionShape,
  site: ExpressionSite,
  text: string,
): CheckIssue[] {
  const compiled = compileTemplate(text);
  if (!compiled.ok) {
    const which =
      compiled.error.placeholder === undefined ? '' : ` placeholder ${compiled.error.placeholder + 1}`;
    return [
      {
        path: site.path,
        message: `${site.label}: template${which} does not parse: ${describe(compiled.error)}`,
      },
    ];
  }
  return templateExpressions(compiled.value).flatMap((expression) =>
    expressionIssues(definition, site, expression),
  );
}
