/**
 * Save-time checks of a `kind: external` definition against this deployment: its engine must be registered and
 * enabled (a run could not start otherwise), and it delivers to stored, report or alert (an HTTP destination
 * resolves a connector of an agent definition). Each refusal is a 400 naming the field; nothing is written.
 */
import { ExternalEngineUnavailableError } from '../external/index.ts';
import type { AnyWorkflowDefinition } from '../schemas/any-workflow.ts';
import type { ApiDeps } from './deps.ts';
import { invalid } from './errors.ts';

export function checkExternalDefinition(deps: ApiDeps, definition: AnyWorkflowDefinition): void {
  if (definition.kind !== 'external') return;
  checkEngineEnabled(deps, definition.engine);
  if (definition.destination.type === 'http')
    throw invalid(
      [{ path: 'destination.type', message: 'external workflows deliver to stored, report or alert' }],
      'invalid workflow definition',
    );
}

/** No registry means no engine is enabled. */
function checkEngineEnabled(deps: ApiDeps, engine: string): void {
  try {
    if (!deps.externalEngines)
      throw new ExternalEngineUnavailableError(
        engine,
        'engine',
        'disabled',
        `engine '${engine}' is not enabled in this deployment (no external engines are configured)`,
      );
    deps.externalEngines.check(engine, 'engine');
  } catch (error) {
    if (!(error instanceof ExternalEngineUnavailableError)) throw error;
    throw invalid(
      [{ path: 'engine', message: error.message.replace(/^engine: /, '') }],
      'invalid workflow definition',
    );
  }
}
