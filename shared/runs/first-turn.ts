/**
 * What every run creator reserves turn 0's budget from (core/first-reservation.ts): the deployment's prices and
 * roles (the engine defaults the Turn function uses too, runtime/engine-deps.ts) and the tool specs of the
 * action catalog. Only the specs are read from the catalog: nothing is dispatched from here. An estimate that
 * differs from the Turn's (another max_tokens rule, other prices) is safe: turn 0 reserves for itself.
 */
import { actionSpecCatalog } from '../actions/spec-catalog.ts';
import type { FirstTurnPlanning } from '../core/first-reservation.ts';
import { DEFAULT_PRICES } from '../core/pricing.ts';
import { DEFAULT_MODEL_CONFIG } from '../model/resolve.ts';

/** The engine's default prices and roles (what the Turn function runs with). */
export const DEFAULT_MODEL_CATALOG = { prices: DEFAULT_PRICES, roles: DEFAULT_MODEL_CONFIG.roles };

/** The planning of a deployment whose Turn runs with `models` and the default action catalog. */
export function firstTurnPlanning(
  models: FirstTurnPlanning['config'] = DEFAULT_MODEL_CATALOG,
): FirstTurnPlanning {
  return {
    config: models,
    // The specs of the default catalog: fetch_url described without its HTML parser (actions/spec-catalog.ts).
    actions: actionSpecCatalog(),
  };
}
