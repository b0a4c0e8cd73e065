/**
 * Names of the runtime's built-in actions. The action registry (shared/actions) implements exactly
 * these; a test keeps the two in step. Connectors declared in a workflow may not reuse them.
 */
export const BUILTIN_ACTION_NAMES = [
  'fetch_url',
  'current_time',
  'http_request',
  'notes_put',
  'notes_append',
] as const;
export type BuiltinActionName = (typeof BUILTIN_ACTION_NAMES)[number];
export const isBuiltinActionName = (name: string): name is BuiltinActionName =>
  (BUILTIN_ACTION_NAMES as readonly string[]).includes(name);
