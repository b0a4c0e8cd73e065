/**
 * Environment variable names the CDK sets on the Lambda functions; handlers read the same names.
 * This file imports nothing, so handlers can import it without loading aws-cdk-lib.
 */
export const ENV = {
  /** DynamoDB table name (every function). */
  tableName: 'WF_TABLE_NAME',
  /** ARN of the run state machine (api, start-run). */
  stateMachineArn: 'WF_STATE_MACHINE_ARN',
  /** ARN of the external state machine (api, start-run: external runs). */
  externalStateMachineArn: 'WF_EXTERNAL_STATE_MACHINE_ARN',
  /**
   * The deployment's external engines, JSON `{"<engine>":{"enabled":true,"settings":{…}}}` (workflow-write:
   * save-time check; external: the adapters). From the `externalEngines` prop or context
   * (docs/external-engines.md).
   */
  externalEngines: 'WF_EXTERNAL_ENGINES',
  /** ARN of the graph state machine (api, start-run: graph runs; graph-wait: child runs use the run machine). */
  graphStateMachineArn: 'WF_GRAPH_STATE_MACHINE_ARN',
  /** ARN of the approval signing keyring secret, `{"current":{kid,secret},"previous":[…]}` (request-approval, approval-http). */
  signingSecretArn: 'WF_SIGNING_SECRET_ARN',
  /** ARN of the approval-notices SNS topic (request-approval). */
  approvalTopicArn: 'WF_APPROVAL_TOPIC_ARN',
  /**
   * Base URL of the approval pages, without a trailing slash, e.g. `https://…/approvals` (request-approval,
   * approval-http; turn and deliver block its host in the egress guard).
   */
  approvalBaseUrl: 'WF_APPROVAL_BASE_URL',
  /**
   * Approver emails subscribed to the approval topic and the owners each is declared for, JSON
   * `{"carol@example.com": ["<owner id>", …]}` (`*`: every owner). request-approval and human-task send links
   * only to an approver declared for the run's owner; workflow-write and api refuse a workflow or grant naming
   * anyone else. Never in the environment: compiled into those four bundles (approver-bundling.ts).
   */
  approverOwners: 'WF_APPROVER_OWNERS',
  /** ARN of the owner-notices SNS topic: failed, denied and expired runs (turn-ending handlers, request-approval). */
  ownerTopicArn: 'WF_OWNER_TOPIC_ARN',
  /** Base URL of the HTTP API, no trailing slash: owner notices link `<url>/v1/runs/<id>` (same functions). */
  apiUrl: 'WF_API_URL',
  /** `anthropic` or `bedrock` (turn). */
  modelProvider: 'WF_MODEL_PROVIDER',
  /** ARN of the Anthropic API key secret, a plain string (turn; only with `anthropic`). */
  anthropicSecretArn: 'WF_ANTHROPIC_SECRET_ARN',
  /** Name prefix of the Secrets Manager secrets workflows may reference as credRefs (turn, deliver). */
  credentialSecretPrefix: 'WF_CREDENTIAL_SECRET_PREFIX',
  /** Role assumed per owner, with session tag `wf-owner`, to read that owner's credential secrets (turn, deliver). */
  credentialRoleArn: 'WF_CREDENTIAL_ROLE_ARN',
  /** Comma-separated host names inside the deployment: unsafe HTTP requests to any other host need approval. */
  internalHosts: 'WF_INTERNAL_HOSTS',
  /** Name of the custom EventBridge bus (api). */
  eventBusName: 'WF_EVENT_BUS_NAME',
  /** Name prefix the api must use for the EventBridge rules it creates on the bus (api). */
  eventRulePrefix: 'WF_EVENT_RULE_PREFIX',
  /** EventBridge Scheduler schedule group for workflow schedules (api). */
  scheduleGroupName: 'WF_SCHEDULE_GROUP_NAME',
  /** Role that EventBridge Scheduler assumes to invoke start-run (api passes it as the schedule target role). */
  schedulerRoleArn: 'WF_SCHEDULER_ROLE_ARN',
  /** ARN of the start-run function: the target of schedules and rules (api). */
  startRunFunctionArn: 'WF_START_RUN_FUNCTION_ARN',
  /** The queue schedules and rules send a trigger they could not deliver to (api, workflow-write). */
  triggerDeadLetterQueueArn: 'WF_TRIGGER_DLQ_ARN',
  /** How /v1 callers are authenticated: `iam` or `jwt` (api). */
  apiAuth: 'WF_API_AUTH',
  /** ARN of the KMS key that signs audit chain heads (given only to the functions that anchor runs or change workflows). */
  auditSigningKeyArn: 'WF_AUDIT_SIGNING_KEY_ARN',
  /** Optional SNS topic ARN for `alert` destinations (deliver; absent when no alert topic is configured). */
  alertTopicArn: 'WF_ALERT_TOPIC_ARN',
  /**
   * Further SNS topics `alert` destinations may name in `destination.topicArn`, comma-separated (deliver
   * publishes to them; api refuses any other topic when a workflow is saved). Absent when none are declared.
   */
  alertTopicArns: 'WF_ALERT_TOPIC_ARNS',
  /**
   * The declared alert topics only some owners may name, as JSON `[{"topicArn": …, "owners": […]}]`
   * (deliver and workflow-write check it; shared/notify/alert-topics.ts). Absent when none is restricted.
   */
  alertTopicOwners: 'WF_ALERT_TOPIC_OWNERS',
} as const;

/** Environment variables set on every function by `RuntimeFunction`. */
export const COMMON_ENV = {
  powertoolsServiceName: 'POWERTOOLS_SERVICE_NAME',
  powertoolsLogLevel: 'POWERTOOLS_LOG_LEVEL',
  powertoolsMetricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  /** 'aws-calls' (Powertools Tracer bundled) or 'invocations'; fixed at bundle time (shared/runtime/tracing.ts). */
  tracing: 'WF_TRACING',
} as const;
