/**
 * The composition of the external function, and the engine checks WorkflowWrite checks saves against (the same
 * configuration without the adapters' code, so its bundle carries none of it).
 */
import { ENV } from '../../../infra/constructs/env-names.ts';
import { BUILTIN_ENGINE_SETTINGS } from '../../external/builtin-settings.ts';
import { BUILTIN_ENGINE_FACTORIES } from '../../external/builtins.ts';
import { createGuardedHttp } from '../../external/http/guarded-http.ts';
import {
  createEngineChecks,
  createEngineRegistry,
  type EnginesConfig,
  EnginesConfigSchema,
  type ExternalEngineChecks,
  type ExternalEngineRegistry,
} from '../../external/index.ts';
import { pollingOnly } from '../../external/polling-only.ts';
import { adapterFactory, type ExternalRunDeps } from '../../external/run/index.ts';
import { systemClock } from '../clock.ts';
import { awsAnswerParent } from './answer-parent.ts';
import { awsEnv, hostOf } from './env.ts';
import { ownerSecrets } from './owner-secrets.ts';
import { awsSigningStore } from './signing-store.ts';

/** The deployment's engine configuration from `WF_EXTERNAL_ENGINES` (JSON), polling only; none when unset. */
function enginesConfigFrom(json: string | undefined): EnginesConfig {
  const config = json === undefined || json.trim() === '' ? {} : EnginesConfigSchema.parse(JSON.parse(json));
  return pollingOnly(config);
}

/** The registry of the deployment's engines from `WF_EXTERNAL_ENGINES` (JSON); a bad value fails at start-up. */
export function engineRegistryFrom(json: string | undefined): ExternalEngineRegistry {
  return createEngineRegistry(BUILTIN_ENGINE_FACTORIES, enginesConfigFrom(json));
}

/** The save-time checks of the same engines: names and settings schemas only, no adapter code. */
export function engineChecksFrom(json: string | undefined): ExternalEngineChecks {
  return createEngineChecks(BUILTIN_ENGINE_SETTINGS, enginesConfigFrom(json));
}

let engines: ExternalEngineRegistry | undefined;
let checks: ExternalEngineChecks | undefined;

/** The engines this deployment enables (`WF_EXTERNAL_ENGINES`), with their adapters (the external function). */
function awsEngineRegistry(): ExternalEngineRegistry {
  engines ??= engineRegistryFrom(awsEnv()[ENV.externalEngines]);
  return engines;
}

/**
 * The save-time checks of the same engines (WorkflowWrite): the same configuration, validated the same way,
 * without the adapters' code in the bundle (external/builtin-settings.ts).
 */
export function awsExternalEngines(): ExternalEngineChecks {
  checks ??= engineChecksFrom(awsEnv()[ENV.externalEngines]);
  return checks;
}

/** External runs: the registry's adapter for each run, through the egress guard (functions/external.ts). */
export async function externalRunDeps(): Promise<ExternalRunDeps> {
  const env = awsEnv();
  const store = awsSigningStore();
  return {
    // An external run ends in this function, which anchors its chain: the signing store (kms:Sign).
    store,
    // A graph step's child run answers the step's wait (states:SendTaskSuccess on the graph machine).
    answerParent: awsAnswerParent(store),
    clock: systemClock,
    adapterFor: adapterFactory({
      engines: awsEngineRegistry(),
      clock: systemClock,
      secrets: ownerSecrets(),
      secretNamePrefix: env[ENV.credentialSecretPrefix],
      // The engine is outside: the egress guard's address checks apply; the runtime's own host is refused.
      http: createGuardedHttp({ blockedHosts: hostOf(env[ENV.approvalBaseUrl]) }),
    }),
  };
}
