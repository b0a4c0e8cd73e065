/**
 * `slack_webhook` connectors: the incoming-webhook URL is the secret (resolved from the declared slot at
 * dispatch time, never shown). It must be an https://hooks.slack.com/… URL; anything else is refused before
 * a request is made. Tests may add a loopback origin through `allowedOrigins`; production never does.
 */

import type { Action } from '../../core/actions.ts';
import { cutText } from '../../core/byte-caps.ts';
import type { SlackWebhookConnectorSchema } from '../../schemas/connector.ts';
import type { WorkflowDefinition } from '../../schemas/workflow.ts';
import * as z from '../../zod.ts';
import { ConnectorConfigError } from '../errors.ts';
import { egressFailure } from '../outcome.ts';
import { resolveSlot, sendConnectorRequest } from './send.ts';

/** A declared `slack_webhook` connector. */
export type SlackWebhookConnector = z.output<typeof SlackWebhookConnectorSchema>;

/** The only origin a Slack webhook secret may point at in production. */
export const SLACK_WEBHOOK_ORIGIN = 'https://hooks.slack.com';

/** Input of a Slack message: text and optional Block Kit blocks. */
export const SlackMessageInput = z.strictObject({
  text: z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(40_000),
      z.describe('The message (Slack mrkdwn). Also the notification text when blocks are given.'),
    ),
  blocks: z
    .optional(z.array(z.record(z.string(), z.unknown())).check(z.maxLength(50)))
    .check(z.describe('Optional Block Kit blocks.')),
});

/** The webhook URL from a secret, or a `ConnectorConfigError` that never quotes the secret. */
export function slackWebhookUrl(connector: string, secret: string, allowedOrigins: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(secret.trim());
  } catch {
    throw new ConnectorConfigError(connector, 'the webhook secret is not a URL');
  }
  if (
    !allowedOrigins.includes(url.origin) ||
    url.username !== '' ||
    url.password !== '' ||
    url.pathname.length < 2
  ) {
    throw new ConnectorConfigError(
      connector,
      'the webhook secret is not an https Slack incoming-webhook URL on hooks.slack.com',
    );
  }
  return url;
}

/** The action of a `slack_webhook` connector. */
export function slackWebhookAction(
  name: string,
  connector: SlackWebhookConnector,
  definition: WorkflowDefinition,
  options: { allowedOrigins?: readonly string[] } = {},
): Action {
  const origins = options.allowedOrigins ?? [SLACK_WEBHOOK_ORIGIN];
  return {
    name,
    description: connector.description,
    input: SlackMessageInput,
    idempotent: connector.idempotent,
    irreversible: connector.irreversible || connector.externalPublish,
    // Slack is outside every deployment: a message always needs approval, whatever the author declared.
    publishesExternally: () => true,
    async run(raw, ctx) {
      const message = raw as z.output<typeof SlackMessageInput>;
      const url = slackWebhookUrl(
        name,
        await resolveSlot(ctx, name, definition, connector.credential.slot),
        origins,
      );
      try {
        const response = await sendConnectorRequest(ctx, {
          method: 'POST',
          url,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(
            message.blocks ? { text: message.text, blocks: message.blocks } : { text: message.text },
          ),
        });
        if (response.status >= 400) {
          return {
            content: `Slack refused the message: HTTP ${response.status} ${cutText(response.body, 200)}`,
            isError: true,
          };
        }
        return { content: 'Posted to Slack.', isError: false };
      } catch (error) {
        // The host is all an egress error could name, but the URL is a secret: say only why.
        return egressFailure(error, { hideDetail: true });
      }
    },
  };
}
