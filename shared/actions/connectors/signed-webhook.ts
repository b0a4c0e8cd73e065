/**
 * `signed_webhook` connectors: POST the input as a JSON object to the declared URL, signed with the key in
 * the declared credential slot (signature.ts). The key itself is never sent.
 */

import type { Action } from '../../core/actions.ts';
import type { SignedWebhookConnectorSchema } from '../../schemas/connector.ts';
import type { WorkflowDefinition } from '../../schemas/workflow.ts';
import * as z from '../../zod.ts';
import { capText } from '../http/response-text.ts';
import { egressFailure } from '../outcome.ts';
import { type PublishPolicy, sendsOutside } from '../publish-policy.ts';
import { resolveSlot, sendConnectorRequest } from './send.ts';
import { SIGNATURE_TIMESTAMP_HEADER, webhookSignature } from './signature.ts';
import { templateOrigin } from './template.ts';

/** A declared `signed_webhook` connector. */
export type SignedWebhookConnector = z.output<typeof SignedWebhookConnectorSchema>;

/** Cap on the serialised payload. */
export const MAX_WEBHOOK_BODY_CHARS = 64 * 1024;

const WebhookInput = z.record(z.string(), z.unknown()).check(
  z.refine((value) => JSON.stringify(value).length <= MAX_WEBHOOK_BODY_CHARS, {
    message: `the JSON payload must be at most ${MAX_WEBHOOK_BODY_CHARS} characters`,
  }),
  z.describe('The JSON object to send.'),
);

/** The action of a `signed_webhook` connector. */
export function signedWebhookAction(
  name: string,
  connector: SignedWebhookConnector,
  definition: WorkflowDefinition,
  options: { publish?: PublishPolicy } = {},
): Action {
  return {
    name,
    description: connector.description,
    input: WebhookInput,
    idempotent: connector.idempotent,
    irreversible: connector.irreversible || connector.externalPublish,
    // A POST: outside the deployment it publishes, whatever the author declared.
    publishesExternally: () => sendsOutside('POST', templateOrigin(name, connector.url), options.publish),
    async run(raw, ctx) {
      templateOrigin(name, connector.url);
      const key = await resolveSlot(ctx, name, definition, connector.credential.slot);
      const body = JSON.stringify({ ...(raw as Record<string, unknown>) });
      const timestamp = Math.floor(ctx.clock.nowMs() / 1000);
      try {
        const response = await sendConnectorRequest(ctx, {
          method: 'POST',
          url: new URL(connector.url),
          headers: {
            'content-type': 'application/json',
            [SIGNATURE_TIMESTAMP_HEADER]: String(timestamp),
            [connector.signatureHeader]: webhookSignature(key, timestamp, body),
          },
          body,
        });
        return {
          content: `Webhook answered HTTP ${response.status}.${response.body ? `\n\n${capText(response.body, 2_000)}` : ''}`,
          isError: response.status >= 400,
        };
      } catch (error) {
        return egressFailure(error);
      }
    },
  };
}
