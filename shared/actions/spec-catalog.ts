/**
 * The action catalog as described, not run: every built-in and declared connector resolves to what the model
 * is told and the approval pages show (name, description, input schema, the irreversible / external-publish
 * flags and an HTTP call's target), through the same resolution as the catalog (catalog.ts). fetch_url comes
 * from its spec (fetch-url-spec.ts), so neither a run's creator pricing turn 0 (runs/first-turn.ts) nor the
 * ApprovalHttp function bundles the HTML parser that only running it needs (docs/deploy.md, "Function bundles").
 */
import type { ActionSpecCatalog } from '../core/actions.ts';
import { createActionCatalog } from './catalog.ts';
import { type ConnectorOptions, connectorActions } from './connectors/factory.ts';
import type { HttpBuiltinOptions } from './http/builtins.ts';
import { fetchUrlSpec } from './http/fetch-url-spec.ts';
import { httpRequestAction } from './http/http-request.ts';
import type { NotesPort } from './notes-port.ts';
import type { PublishPolicy } from './publish-policy.ts';

const DESCRIBES_ONLY = 'a specs-only action catalog describes actions; it runs none';

/** The notes of a catalog read for its specs only: nothing may run through it. */
const NO_NOTES: NotesPort = {
  put: () => Promise.reject(new Error(DESCRIBES_ONLY)),
  append: () => Promise.reject(new Error(DESCRIBES_ONLY)),
};

/** Options as the catalog they describe was built with (runtime/engine-deps.ts actionCatalogFor). */
export type ActionSpecOptions = {
  http?: HttpBuiltinOptions;
  connectors?: ConnectorOptions;
  /** The operator's internal hosts: what decides whether an HTTP call publishes externally. */
  publish?: PublishPolicy;
};

/** The specs of the catalog `actionCatalogFor(store, options)` builds. */
export function actionSpecCatalog(options: ActionSpecOptions = {}): ActionSpecCatalog {
  const publish = options.publish ? { publish: options.publish } : {};
  return createActionCatalog({
    notes: NO_NOTES,
    httpBuiltins: {
      fetch_url: fetchUrlSpec(options.http),
      http_request: (definition) => httpRequestAction(definition, { ...options.http, ...publish }),
    },
    connectorAction: connectorActions({ ...options.connectors, ...publish }),
  });
}
