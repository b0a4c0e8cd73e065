/**
 * Graph workflows (docs/graph-workflows.md): the definition's schema and types, save-time validation, JSONata
 * expressions and templates, pure readiness, run data, and human-task forms. Re-exports only.
 *
 * For code bundled into a Lambda that needs one value from here, import its module directly: importing this
 * index brings every module's top-level code (jsonata among it) into the bundle (`npm run bench:bundles`).
 * Type-only imports cost nothing either way.
 */
export {
  AgentTaskNodeSchema,
  EndNodeSchema,
  ExternalTaskNodeSchema,
  type GraphDefinition,
  GraphDefinitionSchema,
  type GraphDefinitionShape,
  GraphDefinitionShapeSchema,
  type GraphEdge,
  GraphEdgeSchema,
  type GraphNode,
  GraphNodeSchema,
  type GraphNodeType,
  HumanTaskNodeSchema,
  JsonSchemaObjectSchema,
  NodeIdSchema,
  ServiceTaskNodeSchema,
  StartNodeSchema,
  TemplateSchema,
} from './definition.ts';
export {
  InvocationSteps,
  InvocationStepsSpentError,
  OVER_BUDGET,
  StepAllowance,
} from './expression-bounds.ts';
export {
  type CompiledExpression,
  compileExpression,
  EXPRESSION_LIMITS,
  type ExpressionAst,
  type ExpressionError,
  evaluateCondition,
  evaluateExpression,
  FORBIDDEN_FUNCTIONS,
  invocationAllowance,
  invocationSteps,
  type Result,
} from './expressions.ts';
export {
  FIELD_ORDER_KEYWORD,
  type FormField,
  type FormFieldKind,
  type FormRead,
  formFields,
  formSchema,
  LONG_TEXT_FORMAT,
  MAX_FORM_FIELDS,
  readForm,
} from './form.ts';
export {
  compileJsonSchema,
  declaredProperties,
  MAX_SCHEMA_BYTES,
  missingField,
  type SchemaCompileResult,
} from './json-schemas.ts';
export {
  type ConditionError,
  type EdgeState,
  type GraphShape,
  type Readiness,
  type RunOutcome,
  readiness,
} from './ready.ts';
export { type DataReference, dataReferences } from './references.ts';
export {
  IN_PROGRESS_STATUSES,
  type RunData,
  RunDataSchema,
  STEP_DATA_FIELDS,
  STEP_STATUSES,
  type StepData,
  StepDataSchema,
  type StepStatus,
  StepStatusSchema,
} from './run-data.ts';
export {
  type CompiledTemplate,
  compileTemplate,
  MAX_TEMPLATE_PLACEHOLDERS,
  renderTemplate,
  renderText,
  renderValue,
  type TemplateError,
  type TemplatePart,
} from './template.ts';
export { graphIssues, MAX_DEFINITION_BYTES, MAX_OUTGOING_EDGES } from './validate.ts';
