/**
 * The AWS composition root: adapters built once per Lambda container from the environment the CDK sets
 * (infra/constructs/env-names.ts). Handlers call `awsRuntime()` for their adapters; telemetry.ts and
 * tracing.ts add logs, metrics and traces, fed by the observed store and egress built here.
 */
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { KMSClient } from '@aws-sdk/client-kms';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SNSClient } from '@aws-sdk/client-sns';
import { STSClient } from '@aws-sdk/client-sts';
import { z } from 'zod';
import { ENV } from '../../infra/constructs/env-names.ts';
import { parseInternalHosts } from '../actions/publish-policy.ts';
import { cachedKeyring } from '../approvals/index.ts';
import {
  type ApprovalAppDeps,
  publicBaseUrlFrom,
  type RequestApprovalDeps,
  sfnTaskTokens,
  type TaskTokensPort,
} from '../approvals-http/index.ts';
import type { AnchorVerifier } from '../audit/index.ts';
import { kmsAnchorSigner, kmsAnchorVerifier } from '../audit-signing/index.ts';
import type { DeliverDeps } from '../core/deliver.ts';
import type { TurnDeps } from '../core/engine.ts';
import type { ModelPort } from '../core/ports.ts';
import {
  OWNER_TAG_KEY,
  ownerKey,
  ownerSessions,
  SECRET_CACHE_TTL_MS,
  secretsManagerSecrets,
  ttlCache,
} from '../credentials/index.ts';
import { createEgress } from '../egress/index.ts';
import { BUILTIN_ENGINE_FACTORIES } from '../external/builtins.ts';
import { createGuardedHttp } from '../external/http/guarded-http.ts';
import { createEngineRegistry, EnginesConfigSchema, type ExternalEngineRegistry } from '../external/index.ts';
import { adapterFactory, type ExternalRunDeps } from '../external/run/index.ts';
import type { AdvanceDeps as GraphDeps } from '../graph-run/advance.ts';
import { graphDefinitions } from '../graph-run/definitions.ts';
import { unconfiguredHumanTasks } from '../graph-run/human-task-port.ts';
import { answerParentStep } from '../graph-run/parent-answer.ts';
import type { GraphDefinitionOf } from '../graph-run/ports.ts';
import type { ServiceStepDeps } from '../graph-run/service-step.ts';
import type { GraphWaitDeps } from '../graph-run/wait.ts';
import type { HumanTaskDeps, RequestHumanTaskDeps } from '../human-tasks/index.ts';
import { createAnthropicModel } from '../model/index.ts';
import {
  type ApproverReach,
  listedApprovers,
  type OwnerNoticeDeps,
  parseApproverList,
  snsNotifier,
  snsOwnerNotifier,
} from '../notify/index.ts';
import type { ExecutionsPort } from '../runs/ports.ts';
import type { Run } from '../schemas/run.ts';
import { DynamoStore } from '../store/index.ts';
import { recordAwsCallsFromEnv as recorded } from './aws-call-recorder.ts';
import { randomIds, systemClock } from './clock.ts';
import { destinations } from './destinations.ts';
import { actionCatalogFor, engineDeps } from './engine-deps.ts';
import { sfnExecutions } from './executions-sfn.ts';
import { bedrockSourceFrom, modelFor } from './model-router.ts';
import { observeStore } from './observed-store.ts';
import { refreshingModel } from './refreshing-model.ts';
import { handlerTelemetry } from './telemetry.ts';
import { observeEgress, telemetryObserver } from './telemetry-observers.ts';
import { tracedClient, tracingObserver } from './tracing.ts';

const EnvSchema = z.object({
  [ENV.tableName]: z.string().min(1),
  [ENV.stateMachineArn]: z.string().optional(),
  [ENV.graphStateMachineArn]: z.string().optional(),
  [ENV.externalStateMachineArn]: z.string().optional(),
  [ENV.externalEngines]: z.string().optional(),
  [ENV.modelProvider]: z.enum(['anthropic', 'bedrock']).default('anthropic'),
  [ENV.anthropicSecretArn]: z.string().optional(),
  [ENV.credentialSecretPrefix]: z.string().default('wf/'),
  [ENV.credentialRoleArn]: z.string().optional(),
  [ENV.internalHosts]: z.string().optional(),
  [ENV.approvalBaseUrl]: z.string().optional(),
  [ENV.alertTopicArn]: z.string().optional(),
  [ENV.alertTopicArns]: z.string().optional(),
  [ENV.signingSecretArn]: z.string().optional(),
  [ENV.approvalTopicArn]: z.string().optional(),
  [ENV.auditSigningKeyArn]: z.string().optional(),
  [ENV.approvers]: z.string().optional(),
  [ENV.ownerTopicArn]: z.string().optional(),
  [ENV.apiUrl]: z.string().optional(),
});

export type AwsRuntime = {
  store: DynamoStore;
  turn(): Promise<TurnDeps>;
  executions(): ExecutionsPort;
  /** Answers Step Functions waits (graph runs: resume, a child run's end). */
  taskTokens: TaskTokensPort;
  /** Answers a graph step's wait when its child run ends (deliver, mark-failed). */
  answerParent(run: Run): Promise<unknown>;
  /** Graph runs: Advance and CompleteStep (store only). */
  graph(): Promise<GraphDeps>;
  /** A graph service step: the store, the action catalog, egress and the workflow's credentials. */
  graphService(): Promise<ServiceStepDeps>;
  /** Graph waits: starting child agent runs, requesting human tasks. */
  graphWait(): Promise<GraphWaitDeps>;
  /** External runs: the registry's adapter for each run, through the egress guard (functions/external.ts). */
  external(): Promise<ExternalRunDeps>;
  /** The engines this deployment enables (`WF_EXTERNAL_ENGINES`); none when unset. */
  externalEngines(): ExternalEngineRegistry;
  deliver(): Promise<DeliverDeps>;
  approvalApp(): Promise<ApprovalAppDeps>;
  requestApproval(): Promise<RequestApprovalDeps>;
  /** The human-task pages, served by the approval function next to the approval pages. */
  humanTaskApp(): Promise<HumanTaskDeps>;
  /** `requestHumanTask` (the graph's human_task wait): links go out on the approval topic, like approvals. */
  requestHumanTask(): Promise<RequestHumanTaskDeps>;
  /** The approvers this deployment subscribed (`WF_APPROVERS`): the only ones it can send links to. */
  approverReach(): ApproverReach;
  /** Owner notices (failed, denied, expired runs) to the owner topic; undefined where it is not configured. */
  ownerNotices(): OwnerNoticeDeps | undefined;
  /** Checks signed audit heads with the KMS key's public key (undefined where the key is not configured). */
  auditVerifier(): AnchorVerifier | undefined;
  /** Topics alert destinations may name (`destination.topicArn`): the declared ones and the default. */
  alertTopicArns(): string[];
  env: z.infer<typeof EnvSchema>;
};

let runtime: AwsRuntime | undefined;

/** A host that the egress guard must never reach: the runtime's own endpoints. */
const hostOf = (url: string | undefined): string[] => {
  try {
    return url ? [new URL(url).hostname] : [];
  } catch {
    return [];
  }
};

/** The registry of the deployment's engines from `WF_EXTERNAL_ENGINES` (JSON); a bad value fails at start-up. */
export function engineRegistryFrom(json: string | undefined): ExternalEngineRegistry {
  const config = json === undefined || json.trim() === '' ? {} : EnginesConfigSchema.parse(JSON.parse(json));
  return createEngineRegistry(BUILTIN_ENGINE_FACTORIES, config);
}

/** The topics an alert destination may name: the declared ones (alertTopics) and the default alert topic. */
function alertTopicArnsOf(env: z.infer<typeof EnvSchema>): string[] {
  const listed = (env[ENV.alertTopicArns] ?? '').split(',').filter((arn) => arn !== '');
  const fallback = env[ENV.alertTopicArn];
  return fallback ? [...new Set([fallback, ...listed])] : listed;
}

/**
 * Every SDK client built here: traced (X-Ray), and recorded for the offline IAM check (test/iam) when
 * WF_AWS_CALL_LOG is set (tests only).
 */
const awsClient = <C>(client: C): C => recorded(tracedClient(client));

export function awsRuntime(): AwsRuntime {
  if (runtime) return runtime;
  const env = EnvSchema.parse(process.env);
  // The operator's internal hosts: unsafe HTTP requests to any other host are external publishes.
  const publish = { internalHosts: parseInternalHosts(env[ENV.internalHosts]) };
  // Logs, metrics and trace annotations come from what passes through the store and the egress guard.
  const telemetry = handlerTelemetry();
  // Only the functions that sign have the key's ARN (and kms:Sign on it); elsewhere heads are not signed.
  const auditKeyArn = env[ENV.auditSigningKeyArn];
  const kms = auditKeyArn ? { client: awsClient(new KMSClient({})), keyArn: auditKeyArn } : undefined;
  const store = observeStore(
    new DynamoStore({ tableName: env[ENV.tableName] }, kms ? { signer: kmsAnchorSigner(kms) } : {}),
    telemetryObserver(telemetry),
    tracingObserver,
  );
  awsClient(store.ctx.doc);
  const auditVerifier = kms ? kmsAnchorVerifier(kms) : undefined;
  const nowMs = () => systemClock.nowMs();
  // Credential secrets are read with the owner's tagged role session (credentials/owner-sessions.ts); without
  // the role there is no way to read them, so none is read (fail closed).
  const roleArn = env[ENV.credentialRoleArn];
  const reader = roleArn
    ? { roleArn, sessionFor: ownerSessions({ sts: awsClient(new STSClient({})), roleArn, nowMs }) }
    : undefined;
  const ownerClients = new Map<string, SecretsManagerClient>();
  const secrets = secretsManagerSecrets({
    namePrefix: env[ENV.credentialSecretPrefix],
    nowMs,
    async clientFor(owner) {
      if (!reader) throw new Error(`${ENV.credentialRoleArn} is not set: credentials cannot be read`);
      let client = ownerClients.get(owner);
      if (!client) {
        // Recorded with the session it signs with, so the offline IAM check evaluates the reader role's policy.
        client = recorded(
          tracedClient(new SecretsManagerClient({ credentials: () => reader.sessionFor(owner) })),
          process.env,
          { roleArn: reader.roleArn, tags: { [OWNER_TAG_KEY]: ownerKey(owner) } },
        );
        ownerClients.set(owner, client);
      }
      return client;
    },
  });
  // The runtime's own secrets (signing keyring, Anthropic key): Powertools caches each for maxAge seconds, so
  // a rotated value is used within SECRET_CACHE_TTL_MS without a redeploy; `forceFetch` bypasses the cache
  // when a signature check or a model call says the cached value is stale.
  const runtimeSecrets = new SecretsProvider({ awsSdkV3Client: awsClient(new SecretsManagerClient({})) });
  const readSecret = async (arn: string, force: boolean, what: string): Promise<string> => {
    const value = await runtimeSecrets.get(arn, { maxAge: SECRET_CACHE_TTL_MS / 1000, forceFetch: force });
    if (typeof value !== 'string' || value.trim() === '') throw new Error(`the ${what} secret is empty`);
    return value;
  };
  const egress = observeEgress(createEgress({ blockedHosts: hostOf(env[ENV.approvalBaseUrl]) }), telemetry);
  let model: ModelPort | undefined;
  const loadModel = (): ModelPort => {
    if (env[ENV.modelProvider] === 'bedrock') return modelFor(bedrockSourceFrom(process.env));
    const arn = env[ENV.anthropicSecretArn];
    if (!arn)
      throw new Error(`${ENV.anthropicSecretArn} is not set: the turn function has no Anthropic API key`);
    const apiKey = ttlCache(
      async (force) =>
        (await readSecret(arn, force, 'Anthropic API key (put the key into it: docs/deploy.md)')).trim(),
      { maxAgeMs: SECRET_CACHE_TTL_MS, nowMs },
    );
    return refreshingModel(apiKey, (key) => createAnthropicModel({ apiKey: key }));
  };
  let executions: ExecutionsPort | undefined;
  const signingArn = env[ENV.signingSecretArn];
  const keyring = cachedKeyring(
    async (force) => {
      if (!signingArn)
        throw new Error(`${ENV.signingSecretArn} is not set: approval links cannot be signed or checked`);
      return readSecret(signingArn, force, 'approval keyring');
    },
    { maxAgeMs: SECRET_CACHE_TTL_MS, nowMs },
  );
  const loadKeyring = async () => {
    await keyring.get();
    return keyring;
  };
  const publicBaseUrl = () => {
    const base = env[ENV.approvalBaseUrl];
    if (!base)
      throw new Error(
        `${ENV.approvalBaseUrl} is not set: approval links need the public URL of the approval pages`,
      );
    return publicBaseUrlFrom(base);
  };
  let snsClient: SNSClient | undefined;
  const sns = () => {
    snsClient ??= awsClient(new SNSClient({}));
    return snsClient;
  };
  const ownerNotices = (): OwnerNoticeDeps | undefined => {
    const topic = env[ENV.ownerTopicArn];
    const apiUrl = env[ENV.apiUrl];
    if (!topic || !apiUrl) return undefined;
    return { notifier: snsOwnerNotifier(sns(), topic), apiBaseUrl: apiUrl };
  };
  // The task-token port retries throttling itself; the SDK must not multiply those retries.
  const taskTokens = sfnTaskTokens(awsClient(new SFNClient({ maxAttempts: 1 })));
  let definitions: GraphDefinitionOf | undefined;
  const graphDefinitionOf = () => {
    definitions ??= graphDefinitions(store);
    return definitions;
  };
  let engines: ExternalEngineRegistry | undefined;
  const externalEngines = () => {
    engines ??= engineRegistryFrom(env[ENV.externalEngines]);
    return engines;
  };
  const humanTaskApp = async (): Promise<HumanTaskDeps> => ({
    store,
    clock: systemClock,
    keyring: await loadKeyring(),
    taskTokens,
    publicBaseUrl: publicBaseUrl(),
    logger: telemetry.logger,
  });
  runtime = {
    store,
    env,
    externalEngines,
    async external() {
      return {
        store,
        clock: systemClock,
        adapterFor: adapterFactory({
          engines: externalEngines(),
          clock: systemClock,
          secrets,
          secretNamePrefix: env[ENV.credentialSecretPrefix],
          // The engine is outside: the egress guard's address checks apply; the runtime's own host is refused.
          http: createGuardedHttp({ blockedHosts: hostOf(env[ENV.approvalBaseUrl]) }),
        }),
      };
    },
    auditVerifier: () => auditVerifier,
    approverReach: () => listedApprovers('sns', parseApproverList(env[ENV.approvers])),
    ownerNotices,
    taskTokens,
    answerParent: (run) => answerParentStep({ store, taskTokens }, run),
    async graph() {
      return { store, definitionOf: graphDefinitionOf(), clock: systemClock };
    },
    async graphService() {
      return {
        store,
        definitionOf: graphDefinitionOf(),
        clock: systemClock,
        actions: actionCatalogFor(store, { publish }),
        egress,
        secrets,
      };
    },
    async graphWait() {
      return {
        store,
        definitionOf: graphDefinitionOf(),
        clock: systemClock,
        ids: randomIds,
        executions: runtime!.executions(),
        humanTasks: unconfiguredHumanTasks,
        answer: (token: string, output: object) => taskTokens.sendSuccess(token, output),
      };
    },
    async turn() {
      model ??= loadModel();
      return engineDeps({ store, model, egress, secrets, clock: systemClock, ids: randomIds, publish });
    },
    async deliver() {
      const alertTopic = env[ENV.alertTopicArn];
      return {
        store,
        clock: systemClock,
        destinations: destinations({
          sns: awsClient(new SNSClient({})),
          ...(alertTopic ? { defaultTopicArn: alertTopic } : {}),
          allowedTopicArns: alertTopicArnsOf(env),
          catalog: actionCatalogFor(store, { publish }),
          egress,
          secrets,
          clock: systemClock,
        }),
      };
    },
    async approvalApp() {
      return {
        store,
        clock: systemClock,
        keyring: await loadKeyring(),
        taskTokens,
        publicBaseUrl: publicBaseUrl(),
        actions: actionCatalogFor(store, { publish }),
        logger: telemetry.logger,
      };
    },
    humanTaskApp,
    async requestHumanTask() {
      const topic = env[ENV.approvalTopicArn];
      if (!topic) throw new Error(`${ENV.approvalTopicArn} is not set: task notices have nowhere to go`);
      return {
        ...(await humanTaskApp()),
        notifier: snsNotifier(sns(), topic, parseApproverList(env[ENV.approvers])),
      };
    },
    async requestApproval() {
      const owners = ownerNotices();
      const topic = env[ENV.approvalTopicArn];
      if (!topic) throw new Error(`${ENV.approvalTopicArn} is not set: approval notices have nowhere to go`);
      return {
        store,
        clock: systemClock,
        keyring: await loadKeyring(),
        publicBaseUrl: publicBaseUrl(),
        notifier: snsNotifier(sns(), topic, parseApproverList(env[ENV.approvers])),
        taskTokens,
        ...(owners ? { owners } : {}),
        logger: telemetry.logger,
      };
    },
    alertTopicArns: () => alertTopicArnsOf(env),
    executions() {
      const arn = env[ENV.stateMachineArn];
      if (!arn) throw new Error(`${ENV.stateMachineArn} is not set`);
      executions ??= sfnExecutions(
        awsClient(new SFNClient({})),
        arn,
        env[ENV.graphStateMachineArn],
        env[ENV.externalStateMachineArn],
      );
      return executions;
    },
  };
  return runtime;
}
