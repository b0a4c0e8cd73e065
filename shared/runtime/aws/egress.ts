/**
 * The egress guard of the functions that call out (turn, deliver), observed by telemetry. The guard's HTTP
 * client (undici, ~550 KB of the bundle) is loaded on the first outbound request, not at cold start: most
 * turns (a final answer, notes, a gated call) and most deliveries (alerts) make none.
 */
import { ENV } from '../../../infra/constructs/env-names.ts';
import type { EgressPort } from '../../core/ports.ts';
import { handlerTelemetry } from '../telemetry.ts';
import { observeEgress } from '../telemetry-observers.ts';
import { awsEnv, hostOf } from './env.ts';

/** An egress port built on first use; a failed load is retried by the next request. */
export function lazyEgress(load: () => Promise<EgressPort>): EgressPort {
  let loading: Promise<EgressPort> | undefined;
  return {
    async request(request) {
      loading ??= load().catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
      return (await loading).request(request);
    },
  };
}

let egress: EgressPort | undefined;

/** The guard never reaches the runtime's own approval pages. */
export function awsEgress(): EgressPort {
  const blockedHosts = hostOf(awsEnv()[ENV.approvalBaseUrl]);
  egress ??= observeEgress(
    lazyEgress(async () => (await import('../../egress/port.ts')).createEgress({ blockedHosts })),
    handlerTelemetry(),
  );
  return egress;
}
