/**
 * Connectors → actions: the `connectorAction` the catalog calls for a connector a workflow declares.
 * Every kind becomes an Action with its own input schema, host allow-list, credential slot and flags
 * (`irreversible = irreversible || externalPublish`, so the gate forces needs_approval).
 */
import type { Action } from '../../core/actions.ts';
import type { Connector } from '../../schemas/connector.ts';
import type { WorkflowDefinition } from '../../schemas/workflow.ts';
import type { PublishPolicy } from '../publish-policy.ts';
import { githubCreateCommentAction, githubCreateIssueAction } from './github.ts';
import { httpConnectorAction } from './http.ts';
import { signedWebhookAction } from './signed-webhook.ts';
import { SLACK_WEBHOOK_ORIGIN, slackWebhookAction } from './slack.ts';

/** Deployment options of the connector actions; production passes none. */
export type ConnectorOptions = {
  /**
   * Origins a `slack_webhook` secret may point at. Default: https://hooks.slack.com only. Tests add their
   * loopback fake here; production leaves it unset.
   */
  slackWebhookOrigins?: readonly string[];
  /** User-Agent of GitHub API calls (GitHub requires one). */
  userAgent?: string;
  /** Cap on the response text an `http` connector returns (default 20,000 characters). */
  maxTextChars?: number;
  /** The operator's internal hosts: unsafe requests to any other host are external publishes. */
  publish?: PublishPolicy;
};

/** Builds the action of one declared connector. */
export type ConnectorActionFactory = (
  name: string,
  connector: Connector,
  definition: WorkflowDefinition,
) => Action;

/** The catalog's `connectorAction`. */
export function connectorActions(options: ConnectorOptions = {}): ConnectorActionFactory {
  const slack = { allowedOrigins: options.slackWebhookOrigins ?? [SLACK_WEBHOOK_ORIGIN] };
  const publish = options.publish === undefined ? {} : { publish: options.publish };
  const github = { ...publish, ...(options.userAgent === undefined ? {} : { userAgent: options.userAgent }) };
  const http = {
    ...publish,
    ...(options.maxTextChars === undefined ? {} : { maxTextChars: options.maxTextChars }),
  };
  return (name, connector, definition) => {
    switch (connector.kind) {
      case 'http':
        return httpConnectorAction(name, connector, definition, http);
      case 'signed_webhook':
        return signedWebhookAction(name, connector, definition, publish);
      case 'slack_webhook':
        return slackWebhookAction(name, connector, definition, slack);
      case 'github_create_issue':
        return githubCreateIssueAction(name, connector, definition, github);
      case 'github_create_comment':
        return githubCreateCommentAction(name, connector, definition, github);
    }
  };
}
