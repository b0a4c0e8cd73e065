/**
 * The ports an adapter is built with (pure types). The composition root supplies them: the wall clock,
 * the owner's secrets, and outbound HTTP through the egress guard (`createGuardedHttp` in http/).
 */
import type { BoundCredentialHeader, Clock, CredentialRef, SecretsPort } from '../core/ports.ts';

/** One outbound request. Credential headers are bound to one origin and injected server-side. */
export type ExternalHttpRequest = {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  credentialHeaders?: BoundCredentialHeader[];
  /** Cap on the response body, in bytes (artifacts may be larger than a status answer). */
  maxResponseBytes?: number;
};

/** The answer, body as raw bytes (artifacts are hashed byte for byte; nothing is decoded first). */
export type ExternalHttpResponse = { status: number; headers: Record<string, string>; body: Uint8Array };

/**
 * Outbound HTTP of adapters. Throws the egress guard's errors: `EgressDeniedError` when the policy refuses
 * the destination, `EgressNetworkError` / `EgressLimitError` when no usable answer came back.
 */
export interface ExternalHttpPort {
  send(request: ExternalHttpRequest): Promise<ExternalHttpResponse>;
}

/** What an adapter is created with, per owner (and workflow): credentials are resolved on the owner's behalf. */
export type AdapterContext = {
  owner: string;
  /**
   * The workflow's credential (its `credential` credRefs slot, as a reference for `owner`), resolved at
   * call time and injected server-side by adapters that authenticate. Absent: no credential is sent.
   */
  credential?: CredentialRef;
  /** Prefix of credential secret names; an owner's are `<prefix><ownerKey>/<name>`. @default 'wf/' */
  secretNamePrefix?: string;
  clock: Clock;
  secrets: SecretsPort;
  http: ExternalHttpPort;
};
