/**
 * The run context a human task shows, as stored on the record: each `context` path of the node with its value.
 * The paths are evaluated by the task's wait (shared/graph-run/wait.ts: JSONata over the run data
 * `{ input, steps }` on the graph's bounded evaluator; a path that fails fails the wait) and stored when the task
 * is created (a re-request keeps them). The page shows this snapshot, so what the assignee sees is what the run
 * knew when it asked, and the page never evaluates anything.
 */
import { cutText } from '../core/byte-caps.ts';
import type { ContextValue } from '../schemas/human-task.ts';

/** Larger values are stored as a shortened JSON preview (never ending inside an emoji), marked `truncated`. */
export const MAX_CONTEXT_VALUE_CHARS = 4000;

/** One context value as stored: JSON data only, shortened past the cap. */
export function contextValue(path: string, value: unknown): ContextValue {
  if (value === undefined) return { path };
  // JSONata sequences carry a marker property; a JSON round-trip keeps only the data.
  const json = JSON.stringify(value);
  if (json === undefined) return { path };
  if (json.length > MAX_CONTEXT_VALUE_CHARS) {
    return { path, value: `${cutText(json, MAX_CONTEXT_VALUE_CHARS - 1)}…`, truncated: true };
  }
  return { path, value: JSON.parse(json) as unknown };
}

/** Context the wait evaluated (path → value, in the node's order), as stored: a missing value as nothing. */
export const contextOf = (values: Record<string, unknown>): ContextValue[] =>
  Object.entries(values).map(([path, value]) => contextValue(path, value));
