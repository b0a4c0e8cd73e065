/** The composition of the external function and the engine registry the api checks saves against. */
import { ENV } from '../../../infra/constructs/env-names.ts';
import { BUILTIN_ENGINE_FACTORIES } from '../../external/builtins.ts';
import { createGuardedHttp } from '../../external/http/guarded-http.ts';
import {
  createEngineRegistry,
  EnginesConfigSchema,
  type ExternalEngineRegistry,
} from '../../external/index.ts';
import { pollingOnly } from '../../external/polling-only.ts';
import { adapterFactory, type ExternalRunDeps } from '../../external/run/index.ts';
import { systemClock } from '../clock.ts';
import { awsAnswerParent } from './answer-parent.ts';
import { awsEnv, hostOf } from './env.ts';
import { ownerSecrets } from './owner-secrets.ts';
import { awsSigningStore } from './signing-store.ts';

/** The registry of the deployment's engines from `WF_EXTERNAL_ENGINES` (JSON); a bad value fails at start-up. */
export function engineRegistryFrom(json: string | undefined): ExternalEngineRegistry {
  const config = json === undefined || json.trim() === '' ? {} : EnginesConfigSchema.parse(JSON.parse(json));
  return createEngineRegistry(BUILTIN_ENGINE_FACTORIES, pollingOnly(config));
}

let engines: ExternalEngineRegistry | undefined;

/** The engines this deployment enables (`WF_EXTERNAL_ENGINES`); none when unset. */
export function awsExternalEngines(): ExternalEngineRegistry {
  engines ??= engineRegistryFrom(awsEnv()[ENV.externalEngines]);
  return engines;
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
      engines: awsExternalEngines(),
      clock: systemClock,
      secrets: ownerSecrets(),
      secretNamePrefix: env[ENV.credentialSecretPrefix],
      // The engine is outside: the egress guard's address checks apply; the runtime's own host is refused.
      http: createGuardedHttp({ blockedHosts: hostOf(env[ENV.approvalBaseUrl]) }),
    }),
  };
}
