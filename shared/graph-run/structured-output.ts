/**
 * An agent step's structured output: the child run's final answer parsed as JSON (a fenced ```json block or
 * the whole text) and validated against the node's `output` JSON Schema (draft 2020-12, shared/json-schema's `run` mode). Without a
 * schema the output is `{ text }`. Invalid → the reason, naming the first problems.
 */
import { compileSchema } from '../json-schema/index.ts';
import { linearPatterns } from '../regex/linear.ts';
import { unstorableOutput } from './storable-output.ts';

export type ParsedOutput = { ok: true; output: unknown } | { ok: false; reason: string };

function jsonIn(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text)?.[1];
  const candidates = [fenced, text, text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)];
  for (const candidate of candidates) {
    if (!candidate?.trim()) continue;
    try {
      return JSON.parse(candidate) as unknown;
    } catch {}
  }
  return undefined;
}

export function parseStructuredOutput(
  text: string,
  schema: Record<string, unknown> | undefined,
): ParsedOutput {
  if (!schema) return { ok: true, output: { text } };
  const value = jsonIn(text);
  if (value === undefined) return { ok: false, reason: 'the final answer holds no JSON object' };
  // The output is the model's: its regexes run on RE2, in linear time (shared/regex/linear.ts).
  const compiled = compileSchema(schema, 'run', { patterns: linearPatterns });
  if (!compiled.ok) return { ok: false, reason: `the output schema does not compile: ${compiled.message}` };
  const { validate } = compiled;
  if (validate(value)) {
    // Valid, yet possibly not storable in the step item (an empty field name, a number DynamoDB cannot hold).
    const unstorable = unstorableOutput(value);
    return unstorable === undefined
      ? { ok: true, output: value }
      : { ok: false, reason: `the output cannot be stored: ${unstorable}` };
  }
  const problems = (validate.errors ?? [])
    .slice(0, 5)
    .map((error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`)
    .join('; ');
  return { ok: false, reason: `the output does not match the node's schema: ${problems}` };
}
