/** The action contract: what the engine offers, gates and dispatches. Implementations live in shared/actions. */

import type { WorkflowDefinition } from '../schemas/workflow.ts';
import * as z from '../zod.ts';
import type { ActionContext, ToolOutcome, ToolSpec } from './ports.ts';

export type RunScope = { runId: string; owner: string; workflowId: string };

export type Action = {
  name: string;
  description: string;
  /** One schema gives the model its JSON Schema and the dispatcher its parse. */
  input: z.ZodMiniType;
  /** Set when the action was declared with a JSON Schema (connectors); otherwise derived from `input`. */
  jsonSchema?: Record<string, unknown>;
  /** Safe to run again with the same Idempotency-Key. */
  idempotent: boolean;
  /** Irreversible or external-publish: at least needs_approval, whatever the workflow says. */
  irreversible: boolean;
  /**
   * Per-call external publishing (e.g. an unsafe HTTP method to a host outside the deployment): when it answers
   * true for the parsed input, the call needs approval like an irreversible one. A throw denies the call.
   */
  publishesExternally?: (input: unknown) => boolean;
  /** For an HTTP action: the method and URL this very call would hit (shown on the approval page). */
  target?: (input: unknown) => { method: string; url: string } | undefined;
  run(input: unknown, ctx: ActionContext & { scope: RunScope }): Promise<ToolOutcome>;
};

/** An action as described (to the model, on an approval page), without the code that runs it. */
export type ActionSpec = Omit<Action, 'run'>;

/** Resolves action names for one workflow (built-ins plus the workflow's connectors). */
export interface ActionCatalog {
  resolve(name: string, definition: WorkflowDefinition): Action | undefined;
}

/**
 * The same names resolved to their specs only (shared/actions/spec-catalog.ts): what prices a run's first turn
 * and what the approval pages show, without bundling what runs the actions (an HTML parser, for fetch_url).
 * Every ActionCatalog is one.
 */
export interface ActionSpecCatalog {
  resolve(name: string, definition: WorkflowDefinition): ActionSpec | undefined;
}

/**
 * The JSON Schema generated from an action's zod input, per schema object: generating it walks the schema on
 * every call, and a turn offers every granted tool. A zod schema is not changed after it is built, so its
 * JSON Schema is the same each time; kept frozen, so no caller can change the next turn's.
 */
const generatedSchemas = new WeakMap<object, Record<string, unknown>>();

function inputSchemaOf(action: ActionSpec): Record<string, unknown> {
  if (action.jsonSchema) {
    const { $schema: _ignored, ...inputSchema } = action.jsonSchema;
    return inputSchema;
  }
  const cached = generatedSchemas.get(action.input);
  if (cached) return cached;
  const { $schema: _ignored, ...inputSchema } = z.toJSONSchema(action.input, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  const frozen = deepFreeze(inputSchema);
  generatedSchemas.set(action.input, frozen);
  return frozen;
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}

/** The tool as offered to the model. */
export function toolSpecOf(action: ActionSpec): ToolSpec {
  return { name: action.name, description: action.description, inputSchema: inputSchemaOf(action) };
}
