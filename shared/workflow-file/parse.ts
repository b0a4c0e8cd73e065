/** Reads a workflow file (YAML or JSON) and validates it against the workflow schema. */
import { parseDocument } from 'yaml';
import { type AnyWorkflowDefinition, AnyWorkflowDefinitionSchema } from '../schemas/any-workflow.ts';
import { type FieldError, fieldErrors, WorkflowValidationError } from './errors.ts';

export type ParseResult =
  | { ok: true; definition: AnyWorkflowDefinition }
  | { ok: false; errors: FieldError[] };

/** Validates an already-parsed object. */
export function validateWorkflowDefinition(value: unknown): ParseResult {
  const parsed = AnyWorkflowDefinitionSchema.safeParse(value);
  return parsed.success
    ? { ok: true, definition: parsed.data }
    : { ok: false, errors: fieldErrors(parsed.error) };
}

/** Parses YAML or JSON text (JSON is YAML) and validates it; syntax errors name the line. */
export function parseWorkflowText(text: string): ParseResult {
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    return {
      ok: false,
      errors: document.errors.map((error) => ({
        path: '(file)',
        message: `${error.message.split('\n')[0]}${error.linePos ? ` (line ${error.linePos[0].line}, column ${error.linePos[0].col})` : ''}`,
      })),
    };
  }
  return validateWorkflowDefinition(document.toJS());
}

/** Like `parseWorkflowText`, but throws a `WorkflowValidationError` listing every problem. */
export function loadWorkflowText(text: string, source?: string): AnyWorkflowDefinition {
  const result = parseWorkflowText(text);
  if (!result.ok) throw new WorkflowValidationError(result.errors, source);
  return result.definition;
}
