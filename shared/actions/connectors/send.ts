/**
 * What every connector dispatch shares: the credential of the declared slot, resolved at dispatch time
 * and bound to the target origin only; the host allow-list (the target's host, nothing else); and the
 * `Idempotency-Key` header derived from the ledger identity, so a repeated idempotent call is recognisable
 * downstream.
 */
import type { ActionContext, EgressResponse } from '../../core/ports.ts';
import type { WorkflowDefinition } from '../../schemas/workflow.ts';
import { type CredentialContext, credentialRefOf } from '../credential-check.ts';
import { ConnectorConfigError } from '../errors.ts';

/** The secret held in a credRefs slot, resolved now, server-side. The model never sees it. */
export async function resolveSlot(
  ctx: CredentialContext,
  connector: string,
  definition: WorkflowDefinition,
  slot: string,
): Promise<string> {
  const spec = Object.hasOwn(definition.credRefs, slot) ? definition.credRefs[slot] : undefined;
  if (!spec)
    throw new ConnectorConfigError(connector, `credential slot '${slot}' is not declared in credRefs`);
  return ctx.secrets.resolve(credentialRefOf(spec, ctx.scope.owner));
}

/** One connector request, before the runtime adds the key, the allow-list and the bound credential. */
export type ConnectorRequest = {
  method: string;
  url: URL;
  headers?: Record<string, string>;
  body?: string;
  /** A header carrying the credential, injected for the target origin only. */
  credential?: { name: string; value: string };
};

/** Sends one connector request through the egress port, allow-listed to its own host. */
export function sendConnectorRequest(ctx: ActionContext, request: ConnectorRequest): Promise<EgressResponse> {
  const { url } = request;
  return ctx.egress.request({
    method: request.method,
    url: url.href,
    headers: { ...request.headers, 'Idempotency-Key': ctx.idempotencyKey },
    ...(request.body === undefined ? {} : { body: request.body }),
    ...(request.credential
      ? {
          credentialHeaders: [
            { origin: url.origin, name: request.credential.name, value: request.credential.value },
          ],
        }
      : {}),
    allowedHosts: [url.hostname],
  });
}
