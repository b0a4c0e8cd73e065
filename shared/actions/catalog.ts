/**
 * The action catalog: built-ins plus the connectors a workflow declares. The engine asks it for an action
 * by name each time it gates a call, so nothing outside the catalog can ever be dispatched.
 */
import type { Action, ActionCatalog, ActionSpec, ActionSpecCatalog } from '../core/actions.ts';
import { type BuiltinActionName, isBuiltinActionName } from '../schemas/builtin-actions.ts';
import type { Connector } from '../schemas/connector.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import { currentTimeAction } from './builtins/current-time.ts';
import { notesAppendAction, notesPutAction } from './builtins/notes.ts';
import type { NotesPort } from './notes-port.ts';

/** A built-in, or a factory of one for the workflow asking (http_request needs the workflow's credRefs). */
export type BuiltinEntry<T extends ActionSpec = Action> = T | ((definition: WorkflowDefinition) => T);

/** What the catalog is built from: actions, or (for a specs-only catalog, spec-catalog.ts) their specs. */
export type CatalogDeps<T extends ActionSpec = Action> = {
  notes: NotesPort;
  /** Built-ins that need the egress guard (fetch_url, http_request); supplied by shared/actions/http. */
  httpBuiltins?: Partial<Record<BuiltinActionName, BuiltinEntry<T>>>;
  /** Turns a connector declared in a workflow into an action. Must not throw. */
  connectorAction?: (name: string, connector: Connector, definition: WorkflowDefinition) => T;
};

/** The catalog of one deployment: built-ins by name, connectors from the asking workflow. */
export function createActionCatalog(deps: CatalogDeps): ActionCatalog;
export function createActionCatalog(deps: CatalogDeps<ActionSpec>): ActionSpecCatalog;
export function createActionCatalog(deps: CatalogDeps<ActionSpec>): ActionSpecCatalog {
  const builtins: Partial<Record<BuiltinActionName, BuiltinEntry<ActionSpec>>> = {
    current_time: currentTimeAction,
    notes_put: notesPutAction(deps.notes),
    notes_append: notesAppendAction(deps.notes),
    ...deps.httpBuiltins,
  };
  return {
    resolve(name, definition) {
      if (isBuiltinActionName(name)) {
        const entry = builtins[name];
        return typeof entry === 'function' ? entry(definition) : entry;
      }
      const connector = Object.hasOwn(definition.connectors, name) ? definition.connectors[name] : undefined;
      return connector && deps.connectorAction
        ? deps.connectorAction(name, connector, definition)
        : undefined;
    },
  };
}
