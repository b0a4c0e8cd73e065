/** What the API app is built from (ports, injected) and what each request carries: the verified identity. */

import type { Context } from 'hono';
import type { AnchorVerifier } from '../audit/index.ts';
import type { Clock, Ids } from '../core/ports.ts';
import { DEFAULT_PRICES } from '../core/pricing.ts';
import type { ExternalEngineChecks } from '../external/index.ts';
import type { HumanTaskPort } from '../graph-run/human-task-port.ts';
import type { JobCaller, JobsDeps, ModelCatalog, RetryPolicy } from '../jobs/index.ts';
import { DEFAULT_MODEL_CONFIG } from '../model/resolve.ts';
import type { AlertTopicOwners } from '../notify/alert-topics.ts';
import type { ApproverReach } from '../notify/reach.ts';
import type { ExecutionsPort } from '../runs/index.ts';
import type { DynamoStore } from '../store/index.ts';
import type { EventBus } from '../triggers-sync/event-bus.ts';
import type { TriggerSync } from '../triggers-sync/port.ts';
import type { LocalEventBus } from './routes/local-events.ts';

/**
 * Who is calling: `owner` fences every read and write; `principal` is recorded as the actor. A delegated-jobs
 * client (docs/jobs.md) also carries `client`: it may use the job routes only, under its owner's grant.
 */
export type Identity = { owner: string; principal: string; client?: string };

/**
 * Verifies the caller. `env` is the server's binding: on Lambda (`hono/aws-lambda`) it holds the API Gateway
 * event as `env.event`; under `@hono/node-server` it holds the Node request. Undefined means 401.
 */
export interface Authenticator {
  authenticate(request: Request, env: unknown): Identity | undefined | Promise<Identity | undefined>;
}

export type ApiDeps = {
  store: DynamoStore;
  executions: ExecutionsPort;
  clock: Clock;
  ids: Ids;
  authenticator: Authenticator;
  triggerSync: TriggerSync;
  /** Where `POST /v1/events` puts owner-stamped events on AWS (the local stack delivers them itself). */
  eventBus?: EventBus;
  /** Checks signed audit heads (`GET /v1/audit`): the local public key, or the KMS key's public key on AWS. */
  auditVerifier?: AnchorVerifier;
  /**
   * SNS topics an `alert` destination may name in `destination.topicArn`: those the deployment declares
   * (and grants Deliver publish on). Any other topic is refused when a workflow is saved. Default: none.
   */
  alertTopicArns?: readonly string[];
  /**
   * The declared topics only some owners may name (`alertTopics` entries with `owners`): another owner's
   * `destination.topicArn` naming one is refused as an undeclared topic is. Default: none restricted.
   */
  alertTopicOwners?: AlertTopicOwners;
  /** Credential secrets are named `<prefix><ownerKey>/…`; definitions referring elsewhere are refused. @default 'wf/' */
  credentialNamePrefix?: string;
  /**
   * Which approvers this deployment can send requests to, for which owners: a workflow naming one not declared
   * for its owner is refused at save time. AWS: `WF_APPROVER_OWNERS`. Undefined: every approver (the local inbox).
   */
  approverReach?: ApproverReach;
  /** Delegated jobs (`/v1/jobs`, `/v1/grants`): the deployment's models and retry waits. Absent: no job routes. */
  jobs?: { models: ModelCatalog; retry?: RetryPolicy };
  /**
   * Answers `/mcp` (the jobs MCP server, shared/mcp/server.ts) for an authenticated client. Absent: no `/mcp`
   * here. The Api function leaves it out (the MCP function serves `/mcp` on AWS, functions/mcp.ts), so its
   * bundle carries no MCP SDK; the local stack passes it.
   */
  mcp?: McpHandler;
  /**
   * The external engines this deployment enables (`externalEngines` in CDK props/context, `WF_EXTERNAL_ENGINES`,
   * the local config). A `kind: external` workflow naming another engine is refused at save time, naming
   * `engine`. Default: none enabled.
   */
  externalEngines?: ExternalEngineChecks;
  /**
   * Graph runs: answering a paused execution's wait (resume), closing human tasks (cancel). Without it the
   * pause and resume routes answer 409 and a cancel leaves the graph's steps as they were.
   */
  graph?: {
    taskTokens: { sendSuccess(token: string, output: object): Promise<unknown> };
    humanTasks?: HumanTaskPort;
  };
  /**
   * The local stack's extras: `POST /local/events`, and `POST /v1/events` delivered on the local bus
   * (`localEventBus`, routes/local-events.ts). Passed in, not imported, so the Api function's bundle carries no
   * local pattern matcher; the local stack passes it.
   */
  local?: { events: LocalEventBus };
};

/** One MCP request of an authenticated jobs client. */
export type McpHandler = (request: Request, jobs: JobsDeps, caller: JobCaller) => Promise<Response>;

export type ApiEnv = { Variables: { identity: Identity } };
export type ApiContext = Context<ApiEnv>;

export const isoNow = (clock: Clock): string => new Date(clock.nowMs()).toISOString();

/** The audit actor for a principal: `owner:<principal>` without whitespace (the audit schema's rule). */
export const actorOf = (identity: Identity): string => `owner:${identity.principal.replaceAll(/\s/g, '_')}`;

/** The deps with delegated jobs configured: the deployment's models, or the default catalog. */
export const withJobDefaults = <D extends Pick<ApiDeps, 'jobs'>>(
  deps: D,
): D & { jobs: NonNullable<ApiDeps['jobs']> } => ({
  ...deps,
  jobs: deps.jobs ?? { models: { prices: DEFAULT_PRICES, roles: { ...DEFAULT_MODEL_CONFIG.roles } } },
});
