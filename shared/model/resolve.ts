/**
 * Model resolution: a workflow names either a role (`fast`, `balanced`, `deep`) or an explicit
 * model id; the port is always called with an id.
 */
import { ModelConfigError } from './errors.ts';

export type ModelRole = 'fast' | 'balanced' | 'deep';

export type ModelConfig = { roles: Record<ModelRole, string> };

/**
 * Default role → model mapping, checked against @anthropic-ai/sdk 1.14 (Nov 2026): `claude-haiku-4-5` is
 * current and thinks only when asked (fast); `claude-sonnet-4-5` reaches end-of-life on 2026-11-30 and
 * `claude-opus-4-1` is retired, so balanced and deep use the 5.5 generation. Override per deployment.
 */
export const DEFAULT_MODEL_CONFIG: ModelConfig = {
  roles: { fast: 'claude-haiku-4-5', balanced: 'claude-sonnet-5-5', deep: 'claude-opus-5-5' },
};

/** A config whose roles override the defaults one by one. */
export function modelConfig(roles: Partial<Record<ModelRole, string>> = {}): ModelConfig {
  return { roles: { ...DEFAULT_MODEL_CONFIG.roles, ...roles } };
}

const ROLE_NAMES: readonly string[] = ['fast', 'balanced', 'deep'];

// Model ids look like `claude-…`, or carry a provider separator (`anthropic.`, `@`, `:`).
const LOOKS_LIKE_MODEL_ID = /^claude-|[.@:/]/;

/**
 * The model id for a spec: a role maps through `config.roles`; anything that looks like a model id
 * passes through. Any other bare word is taken for a mistyped role and is a `ModelConfigError`.
 */
export function resolveModel(spec: string, config: ModelConfig = DEFAULT_MODEL_CONFIG): string {
  const name = spec.trim();
  if (ROLE_NAMES.includes(name)) {
    const id = config.roles[name as ModelRole];
    if (!id) throw new ModelConfigError(`model role "${name}" has no model in the config`);
    return id;
  }
  if (name !== '' && LOOKS_LIKE_MODEL_ID.test(name)) return name;
  throw new ModelConfigError(
    `unknown model role "${spec}": use one of ${ROLE_NAMES.join(', ')} or an explicit model id (claude-…)`,
  );
}
