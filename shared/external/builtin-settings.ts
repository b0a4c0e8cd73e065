/**
 * The engines built into the product as the save-time checks know them: names and settings schemas only
 * (registry.ts `createEngineChecks`), without the adapters builtins.ts hands to `createEngineRegistry`.
 * test/external/engine-checks.test.ts fails if the two lists ever name different engines or schemas.
 */
import { HTTP_RUNTIME_ENGINE } from './http/adapter.ts';
import { HttpRuntimeSettingsSchema } from './http/settings.ts';
import type { ExternalEngineSettings } from './registry.ts';

export const BUILTIN_ENGINE_SETTINGS: readonly ExternalEngineSettings[] = [
  { engine: HTTP_RUNTIME_ENGINE, settings: HttpRuntimeSettingsSchema },
];
