/**
 * What every run creator reserves turn 0's budget from (core/first-reservation.ts): the deployment's prices and
 * roles (the engine defaults the Turn function uses too, runtime/engine-deps.ts) and the tool specs of the
 * action catalog. Only the specs are read from the catalog: nothing is dispatched from here. An estimate that
 * differs from the Turn's (another max_tokens rule, other prices) is safe: turn 0 reserves for itself.
 */
import { createActionCatalog } from '../actions/catalog.ts';
import { connectorActions } from '../actions/connectors/factory.ts';
import { FetchUrlInput, fetchUrlDescription } from '../actions/http/fetch-url-spec.ts';
import { httpRequestAction } from '../actions/http/http-request.ts';
import { DEFAULT_MAX_TEXT_CHARS } from '../actions/http/response-text.ts';
import type { NotesPort } from '../actions/notes-port.ts';
import type { Action } from '../core/actions.ts';
import type { FirstTurnPlanning } from '../core/first-reservation.ts';
import { DEFAULT_PRICES } from '../core/pricing.ts';
import { DEFAULT_MODEL_CONFIG } from '../model/resolve.ts';

/** The engine's default prices and roles (what the Turn function runs with). */
export const DEFAULT_MODEL_CATALOG = { prices: DEFAULT_PRICES, roles: DEFAULT_MODEL_CONFIG.roles };

/** Notes of a catalog read for its tool specs only: nothing may run through it. */
const SPECS_ONLY: NotesPort = {
  put: () => Promise.reject(new Error('the planning catalog describes actions; it runs none')),
  append: () => Promise.reject(new Error('the planning catalog describes actions; it runs none')),
};

/** `fetch_url` as the default catalog offers it (fetch-url.ts), described only. */
const FETCH_URL_SPEC: Action = {
  name: 'fetch_url',
  description: fetchUrlDescription(DEFAULT_MAX_TEXT_CHARS),
  input: FetchUrlInput,
  idempotent: true,
  irreversible: false,
  run: () => Promise.reject(new Error('the planning catalog describes actions; it runs none')),
};

/** The planning of a deployment whose Turn runs with `models` and the default action catalog. */
export function firstTurnPlanning(
  models: FirstTurnPlanning['config'] = DEFAULT_MODEL_CATALOG,
): FirstTurnPlanning {
  return {
    config: models,
    actions: createActionCatalog({
      notes: SPECS_ONLY,
      // fetch_url described without its HTML parser (fetch-url-spec.ts); http_request as it is.
      httpBuiltins: {
        fetch_url: FETCH_URL_SPEC,
        http_request: (definition) => httpRequestAction(definition),
      },
      connectorAction: connectorActions(),
    }),
  };
}
