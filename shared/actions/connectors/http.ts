/**
 * `http` connectors: a named HTTP action declared in the workflow file (method, URL template, input schema,
 * optional credential). GET requests, and connectors declared with `body: none`, carry the input (minus path
 * parameters) as query parameters; the others as a JSON body.
 */

import type { Action } from '../../core/actions.ts';
import type { HttpConnectorSchema } from '../../schemas/connector.ts';
import type { WorkflowDefinition } from '../../schemas/workflow.ts';
import type * as z from '../../zod.ts';
import { DEFAULT_MAX_TEXT_CHARS, httpResultText } from '../http/response-text.ts';
import { egressFailure } from '../outcome.ts';
import { type PublishPolicy, sendsOutside } from '../publish-policy.ts';
import { connectorInput } from './input-schema.ts';
import { resolveSlot, sendConnectorRequest } from './send.ts';
import { fillTemplate, templateOrigin, templateParams } from './template.ts';

/** A declared `http` connector. */
export type HttpConnector = z.output<typeof HttpConnectorSchema>;

/** The action of an `http` connector. */
export function httpConnectorAction(
  name: string,
  connector: HttpConnector,
  definition: WorkflowDefinition,
  options: { maxTextChars?: number; publish?: PublishPolicy } = {},
): Action {
  const { input, jsonSchema } = connectorInput(connector.input, templateParams(connector.url));
  const maxChars = options.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS;
  return {
    name,
    description: connector.description,
    input,
    jsonSchema,
    idempotent: connector.idempotent,
    irreversible: connector.irreversible || connector.externalPublish,
    // Whatever the author declared: an unsafe method to a host outside the deployment is an external publish.
    publishesExternally: () =>
      sendsOutside(connector.method, templateOrigin(name, connector.url), options.publish),
    target: (raw) => ({
      method: connector.method,
      url: fillTemplate(name, connector.url, raw as Record<string, unknown>).url.href,
    }),
    async run(raw, ctx) {
      const { url, rest } = fillTemplate(name, connector.url, raw as Record<string, unknown>);
      const headers: Record<string, string> = { accept: 'application/json, text/*;q=0.9, */*;q=0.5' };
      let body: string | undefined;
      if (connector.method === 'GET' || connector.body === 'none') {
        for (const [key, value] of Object.entries(rest)) {
          if (value !== undefined)
            url.searchParams.append(key, typeof value === 'string' ? value : JSON.stringify(value));
        }
      } else {
        body = JSON.stringify(rest);
        headers['content-type'] = 'application/json';
      }
      const slot = connector.credential;
      const credential = slot
        ? {
            name: slot.header,
            value: ((secret: string) => slot.format.replaceAll('{secret}', () => secret))(
              await resolveSlot(ctx, name, definition, slot.slot),
            ),
          }
        : undefined;
      try {
        const response = await sendConnectorRequest(ctx, {
          method: connector.method,
          url,
          headers,
          ...(body === undefined ? {} : { body }),
          ...(credential ? { credential } : {}),
        });
        return httpResultText(response, maxChars);
      } catch (error) {
        return egressFailure(error);
      }
    },
  };
}
