/**
 * The deployments (AWS and the local stack) observe external executions by polling only: no route receives
 * engine callbacks, and the external state machine's Wait cannot be woken by one. An engine configured with
 * a `callback` would be told to push to a URL nothing serves or verifies, and an operator would believe pushes
 * shorten the wait. So a deployment refuses that setting at start-up, naming it (fail closed). The adapters'
 * `verifyCallback` stays in the contract for a future receiver (docs/external-engines.md, "Callbacks").
 * Pure: zod-free, imports only the error type.
 */
import { ExternalEngineUnavailableError } from './errors.ts';
import type { EnginesConfig } from './registry.ts';

/** `config` as it is, if no enabled engine asks for callbacks; otherwise throws naming the setting. */
export function pollingOnly(config: EnginesConfig): EnginesConfig {
  for (const [name, engine] of Object.entries(config)) {
    const settings = engine?.settings as Record<string, unknown> | undefined;
    if (engine?.enabled !== true || settings === undefined || !('callback' in settings)) continue;
    throw new ExternalEngineUnavailableError(
      name,
      `engines.${name}.settings.callback`,
      'invalid_settings',
      'this deployment does not receive engine callbacks (runs poll the engine); remove `callback`',
    );
  }
  return config;
}
