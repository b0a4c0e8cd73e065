/**
 * The HTTP runtime adapter's one way out: every call goes through the `ExternalHttpPort` (the egress guard)
 * with the owner's credential injected server-side for the endpoint's origin only. Guard refusals become
 * `ExternalRefusedError` (except an unsafe request the engine had answered, with a redirect the guard did not
 * follow); anything that left no usable answer becomes `ExternalTransportError`, marked `sent` when the
 * request may have been received.
 */

import { cutText } from '../../core/byte-caps.ts';
import { isPermanentCredentialFailure } from '../../core/errors.ts';
import { ownerSecretPrefix } from '../../credentials/owner-key.ts';
import { EgressDeniedError, EgressError } from '../../egress/errors.ts';
import type * as z from '../../zod.ts';
import { ExternalRefusedError, ExternalTransportError } from '../errors.ts';

import type { AdapterContext, ExternalHttpRequest, ExternalHttpResponse } from '../ports.ts';
import type { HttpRuntimeSettings } from './settings.ts';

/** Methods that ask nothing of the engine: a read answered with a redirect changed nothing there. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** One protocol call, relative to the endpoint. */
export type Call = Omit<ExternalHttpRequest, 'url' | 'credentialHeaders'> & { path: string };

export class HttpRuntimeClient {
  readonly engine: string;
  readonly #settings: HttpRuntimeSettings;
  readonly #context: AdapterContext;

  constructor(engine: string, settings: HttpRuntimeSettings, context: AdapterContext) {
    this.engine = engine;
    this.#settings = settings;
    this.#context = context;
  }

  /** Sends one call. `key` names the execution in errors. */
  async send(key: string | undefined, call: Call): Promise<ExternalHttpResponse> {
    const { path, ...rest } = call;
    const url = `${this.#settings.endpoint}${path}`;
    const credentialHeaders = await this.#credential(key);
    try {
      return await this.#context.http.send({
        ...rest,
        url,
        ...(credentialHeaders ? { credentialHeaders } : {}),
      });
    } catch (error) {
      // A refusal is the engine's call refused, unless an unsafe request (a start, a cancel) was answered first
      // (a redirect, not followed): the engine received it and may have acted on it, so it is a transport
      // failure, sent (below), never "refused". A read answered with a redirect stays refused.
      const received =
        error instanceof EgressError && error.delivery.sent && !SAFE_METHODS.has(error.delivery.method);
      if (error instanceof EgressDeniedError && !received) {
        throw new ExternalRefusedError(this.engine, key, `egress denied: ${error.reason}`, {
          cause: error,
          sent: error.delivery.sent,
        });
      }
      if (error instanceof EgressError) {
        throw new ExternalTransportError(
          this.engine,
          key,
          'transport',
          error.reason,
          error.delivery.sent,
          error,
        );
      }
      throw error;
    }
  }

  /** Parses a JSON answer; an answer we cannot read is a transport failure (it was received, maybe acted on). */
  json<S extends z.ZodMiniType>(
    key: string | undefined,
    response: ExternalHttpResponse,
    schema: S,
  ): z.output<S> {
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(response.body));
    } catch (cause) {
      throw new ExternalTransportError(
        this.engine,
        key,
        'malformed_response',
        `HTTP ${response.status}`,
        true,
        cause,
      );
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const where = parsed.error.issues[0]?.path.join('.') || 'body';
      throw new ExternalTransportError(this.engine, key, 'malformed_response', where, true, parsed.error);
    }
    return parsed.data;
  }

  /**
   * The workflow's credential, resolved now and bound to the endpoint's origin. A reference for another
   * owner, or one that cannot be loaded, refuses the call before anything is sent (fail closed).
   */
  async #credential(key: string | undefined) {
    const ref = this.#context.credential;
    if (ref === undefined) return undefined;
    if (ref.owner !== this.#context.owner) {
      throw new ExternalRefusedError(this.engine, key, `credential ${ref.secret} is not the owner's`, {
        sent: false,
      });
    }
    let secret: string;
    try {
      secret = await this.#context.secrets.resolve(ref);
    } catch (cause) {
      // Nothing was sent. A read that can never succeed as named (missing, not the owner's, access denied) is
      // final; any other (throttled, unreachable) is asked again later: Start retries it with the same key.
      const permanent = isPermanentCredentialFailure(cause);
      const reason = cause instanceof Error ? cutText(`: ${cause.message}`, 300) : '';
      throw new ExternalRefusedError(
        this.engine,
        key,
        permanent
          ? `credential ${ref.secret} cannot be read (retrying will not help)${reason}`
          : `credential ${ref.secret} could not be loaded now${reason}`,
        { cause, retryable: !permanent, sent: false },
      );
    }
    const { header, format } = this.#settings.auth;
    const value = format.replaceAll('{secret}', () => secret);
    return [{ origin: new URL(this.#settings.endpoint).origin, name: header, value }];
  }
}

/** Resolves `name` (and `field`) inside the owner's secret namespace, server-side. */
export function resolveOwnerSecret(
  context: AdapterContext,
  name: string,
  field: string | undefined,
): Promise<string> {
  const secret = `${ownerSecretPrefix(context.secretNamePrefix ?? 'wf/', context.owner)}${name}`;
  const ref = { owner: context.owner, secret };
  return context.secrets.resolve(field === undefined ? ref : { ...ref, field });
}
