/**
 * The egress guard of the functions that call out (turn, deliver), observed by telemetry. It speaks HTTP with
 * Node's own node:http over sockets it dials itself (shared/egress/dial.ts): no HTTP client library to load.
 */
import { ENV } from '../../../infra/constructs/env-names.ts';
import type { EgressPort } from '../../core/ports.ts';
import { createEgress } from '../../egress/port.ts';
import { handlerTelemetry } from '../telemetry.ts';
import { observeEgress } from '../telemetry-observers.ts';
import { awsEnv, hostOf } from './env.ts';

let egress: EgressPort | undefined;

/** The guard never reaches the runtime's own approval pages. */
export function awsEgress(): EgressPort {
  egress ??= observeEgress(
    createEgress({ blockedHosts: hostOf(awsEnv()[ENV.approvalBaseUrl]) }),
    handlerTelemetry(),
  );
  return egress;
}
