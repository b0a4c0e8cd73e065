/**
 * The registry of external engines: adapter factories by name, and the deployment's configuration saying
 * which engines are enabled and with which settings (CDK props/context, local config). Settings are
 * validated once, when the registry is built; an unknown or disabled engine is an
 * `ExternalEngineUnavailableError` naming the field, which a workflow save turns into a 400.
 */
import * as z from '../zod.ts';
import type { ExternalAdapter } from './contract.ts';
import { EngineNameSchema } from './definition.ts';
import { ExternalEngineUnavailableError } from './errors.ts';
import type { AdapterContext } from './ports.ts';

/** The deployment's configuration of one engine. Engines are off unless enabled. */
export const EngineConfigSchema = z.strictObject({
  enabled: z._default(z.boolean(), false),
  settings: z._default(z.record(z.string(), z.unknown()), {}),
});

/** The deployment's configuration of every engine, by name (`externalEngines` in CDK props and local config). */
export const EnginesConfigSchema = z.record(EngineNameSchema, EngineConfigSchema);
export type EnginesConfig = z.input<typeof EnginesConfigSchema>;

/**
 * An engine as the registry knows it before any adapter is built: its name and the schema its deployment
 * settings are checked with. A factory is one; a save-time check needs nothing more (`createEngineChecks`).
 */
export interface ExternalEngineSettings<S = unknown> {
  readonly engine: string;
  readonly settings: z.ZodMiniType<S>;
}

/** Builds one engine's adapter from its validated settings. `engine` is its registry name. */
export interface ExternalAdapterFactory<S = unknown> extends ExternalEngineSettings<S> {
  create(settings: S, context: AdapterContext): ExternalAdapter;
}

/** A factory whatever its settings type (the registry validates settings with the factory's own schema). */
// biome-ignore lint/suspicious/noExplicitAny: factories differ in their settings type
export type AnyExternalAdapterFactory = ExternalAdapterFactory<any>;

/** The enabled engines of one deployment. */
export interface ExternalEngineRegistry {
  /** Names of the enabled engines, sorted. */
  enabled(): string[];
  /**
   * Throws `ExternalEngineUnavailableError` unless `engine` is registered and enabled. `field` is the
   * path the error names (default `engine`), e.g. `external.engine` of a workflow being saved.
   */
  check(engine: string, field?: string): void;
  /** An adapter of an enabled engine for one owner (checks first, like `check`). */
  create(engine: string, context: AdapterContext, field?: string): ExternalAdapter;
}

/** What a workflow save asks of the registry: which engines are enabled, and whether one is. */
export type ExternalEngineChecks = Pick<ExternalEngineRegistry, 'enabled' | 'check'>;

type Enabled<T> = { factory: T; settings: unknown };

/**
 * Builds the registry. Every enabled engine must have a factory and valid settings; otherwise this throws
 * `ExternalEngineUnavailableError` naming `engines.<name>…` so a bad deployment fails at start-up.
 *
 * @example
 * const registry = createEngineRegistry([httpRuntimeFactory], {
 *   'http-runtime': { enabled: true, settings: { endpoint: 'https://engine.internal' } },
 * });
 * registry.check(definition.external.engine, 'external.engine'); // on save: 400 naming the field
 * const adapter = registry.create('http-runtime', { owner, clock, secrets, http });
 */
export function createEngineRegistry(
  factories: readonly AnyExternalAdapterFactory[],
  config: EnginesConfig = {},
): ExternalEngineRegistry {
  const { enabled, lookup } = enabledEngines<ExternalAdapterFactory<unknown>>(factories, config);
  return {
    enabled,
    check: (engine, field = 'engine') => void lookup(engine, field),
    create: (engine, context, field = 'engine') => {
      const { factory, settings } = lookup(engine, field);
      return factory.create(settings, context);
    },
  };
}

/**
 * The registry's checks alone, from the engines' names and settings schemas: the same validation of `config`
 * (the same errors, at the same time), and the same answers to `enabled` and `check`, without the adapters'
 * code (the WorkflowWrite function only checks saves: docs/deploy.md, "Function bundles").
 */
export function createEngineChecks(
  // biome-ignore lint/suspicious/noExplicitAny: engines differ in their settings type
  engines: readonly ExternalEngineSettings<any>[],
  config: EnginesConfig = {},
): ExternalEngineChecks {
  const { enabled, lookup } = enabledEngines<ExternalEngineSettings<unknown>>(engines, config);
  return { enabled, check: (engine, field = 'engine') => void lookup(engine, field) };
}

/** Validates `config` against the engines (throws naming the field) and looks enabled engines up. */
function enabledEngines<T extends ExternalEngineSettings<unknown>>(
  factories: readonly T[],
  config: EnginesConfig,
): { enabled: () => string[]; lookup: (engine: string, field: string) => Enabled<T> } {
  const byName = new Map<string, T>();
  for (const factory of factories) {
    if (byName.has(factory.engine)) throw new Error(`external engine ${factory.engine} is registered twice`);
    byName.set(factory.engine, factory);
  }
  const parsed = EnginesConfigSchema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = ['engines', ...(issue?.path ?? [])].join('.');
    throw new ExternalEngineUnavailableError('', field, 'invalid_settings', issue?.message ?? 'invalid');
  }
  const enabled = new Map<string, Enabled<T>>();
  for (const [name, engine] of Object.entries(parsed.data)) {
    if (!engine.enabled) continue;
    const factory = byName.get(name);
    if (factory === undefined) {
      throw new ExternalEngineUnavailableError(name, `engines.${name}`, 'unknown', unknownText(name, byName));
    }
    const settings = factory.settings.safeParse(engine.settings);
    if (!settings.success) {
      const issue = settings.error.issues[0];
      const field = ['engines', name, 'settings', ...(issue?.path ?? [])].join('.');
      throw new ExternalEngineUnavailableError(name, field, 'invalid_settings', issue?.message ?? 'invalid');
    }
    enabled.set(name, { factory, settings: settings.data });
  }
  const lookup = (engine: string, field: string): Enabled<T> => {
    const found = enabled.get(engine);
    if (found !== undefined) return found;
    if (byName.has(engine)) {
      throw new ExternalEngineUnavailableError(
        engine,
        field,
        'disabled',
        `engine ${JSON.stringify(engine)} is not enabled in this deployment`,
      );
    }
    throw new ExternalEngineUnavailableError(engine, field, 'unknown', unknownText(engine, byName));
  };
  return { enabled: () => [...enabled.keys()].sort(), lookup };
}

function unknownText(engine: string, byName: ReadonlyMap<string, unknown>): string {
  const known = [...byName.keys()].sort().join(', ') || 'none';
  return `unknown external engine ${JSON.stringify(engine)} (registered: ${known})`;
}
