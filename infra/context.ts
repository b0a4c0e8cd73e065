/**
 * Reads the app's settings from CDK context (`-c key=value` or cdk.json), validated, into construct props.
 * Keys: stackName, modelProvider, approvers (JSON object owner → [approver emails], `*` for every owner),
 * ownerNotices (JSON object owner → email, or owner → [emails]), apiAuth (iam | jwt) with jwtIssuer and jwtAudience (comma-separated), eventBusName,
 * internalHosts (comma-separated), removalPolicy (retain | destroy), externalEngines (JSON object: engine →
 * { enabled, settings }; docs/external-engines.md), credentialSecretPrefix and metricsNamespace (derived from the
 * stack name when unset: infra/constructs/deployment-names.ts). See docs/deploy.md.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import type { Node } from 'constructs';
import type { EnginesConfig } from '../shared/external/index.ts';
import type { ApproverDeclaration } from './constructs/approval-notices.ts';
import { DEFAULT_STACK_NAME } from './constructs/deployment-names.ts';
import type { OwnerSubscription } from './constructs/owner-notices.ts';
import { ApiAuth } from './constructs/runtime-api.ts';
import type { ModelProvider, WorkflowRuntimeProps } from './constructs/workflow-runtime.ts';

/** The stack name when the context sets none. */
export { DEFAULT_STACK_NAME };

/** The stack name and runtime props the context asks for. */
export function settingsFromContext(node: Node): { stackName: string; runtime: WorkflowRuntimeProps } {
  const get = (key: string): string | undefined => {
    const value: unknown = node.tryGetContext(key);
    if (value === undefined || value === null || value === '') return undefined;
    if (Array.isArray(value)) return value.map(String).join(',');
    return String(value);
  };
  const list = (key: string) =>
    get(key)
      ?.split(',')
      .map((each) => each.trim())
      .filter((each) => each !== '');

  const provider = get('modelProvider');
  if (provider !== undefined && provider !== 'anthropic' && provider !== 'bedrock') {
    throw new Error(
      `context modelProvider '${provider}' is unknown; use -c modelProvider=anthropic or bedrock.`,
    );
  }
  const removal = get('removalPolicy');
  if (removal !== undefined && removal !== 'retain' && removal !== 'destroy') {
    throw new Error(`context removalPolicy '${removal}' is unknown; use -c removalPolicy=retain or destroy.`);
  }
  const auth = get('apiAuth');
  if (auth !== undefined && auth !== 'iam' && auth !== 'jwt') {
    throw new Error(
      `context apiAuth '${auth}' is unknown; use -c apiAuth=iam or jwt (with jwtIssuer, jwtAudience).`,
    );
  }
  const approvers = approversFrom(node.tryGetContext('approvers'));
  const ownerNotices = ownerNoticesFrom(node.tryGetContext('ownerNotices'));
  const eventBusName = get('eventBusName');
  const internalHosts = list('internalHosts');
  const externalEngines = jsonObjectFrom(node.tryGetContext('externalEngines'), 'externalEngines');
  // Unset: derived from the stack name, so a second stack in the account gets its own (deployment-names.ts).
  const credentialSecretPrefix = get('credentialSecretPrefix');
  const metricsNamespace = get('metricsNamespace');
  const runtime: WorkflowRuntimeProps = {
    ...(provider === undefined ? {} : { modelProvider: provider as ModelProvider }),
    ...(approvers === undefined ? {} : { approvers }),
    ...(ownerNotices === undefined ? {} : { ownerNotices }),
    ...(eventBusName === undefined ? {} : { eventBusName }),
    ...(internalHosts === undefined ? {} : { internalHosts }),
    ...(externalEngines === undefined ? {} : { externalEngines: externalEngines as EnginesConfig }),
    ...(credentialSecretPrefix === undefined ? {} : { credentialSecretPrefix }),
    ...(metricsNamespace === undefined ? {} : { metricsNamespace }),
    ...(removal === undefined
      ? {}
      : { removalPolicy: removal === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN }),
    ...(auth === 'jwt'
      ? { apiAuth: ApiAuth.jwt({ issuer: get('jwtIssuer') ?? '', audience: list('jwtAudience') ?? [] }) }
      : {}),
  };
  return { stackName: get('stackName') ?? DEFAULT_STACK_NAME, runtime };
}

/** A JSON object given as an object (cdk.json) or its JSON text (`-c key='{…}'`). */
function jsonObjectFrom(value: unknown, key: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = undefined;
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(
      `context ${key} must be a JSON object, e.g. -c '${key}={"http-runtime":{"enabled":true,"settings":{"endpoint":"https://engine.internal"}}}'.`,
    );
  return parsed as Record<string, unknown>;
}

/** `ownerNotices`: `{"<owner id>": "email"}` or `{"<owner id>": ["email", …]}`, as an object or its JSON text. */
function ownerNoticesFrom(value: unknown): OwnerSubscription[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const fail = (): never => {
    throw new Error(
      `context ownerNotices must map owner ids to email addresses, e.g. -c 'ownerNotices={"123456789012:role:ci":"ops@example.com"}'.`,
    );
  };
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      fail();
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return fail();
  return Object.entries(parsed).flatMap(([owner, emails]) => {
    const list = Array.isArray(emails) ? emails : [emails];
    return list.map((email) => (typeof email === 'string' ? { owner, email } : fail()));
  });
}

/**
 * `approvers`: `{"<owner id>": ["carol@example.com", …]}` (or one address), `"*"` as the owner for an approver
 * every owner may name, as an object or its JSON text. The comma-separated list of earlier versions declared
 * approvers for every owner: it is refused with the upgrade step, never read as "everyone".
 */
function approversFrom(value: unknown): ApproverDeclaration[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const example = `-c 'approvers={"123456789012:role:team-a":["carol@example.com"]}'`;
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new Error(
        `context approvers must map owner ids to approver emails, e.g. ${example}; approvers are declared per ` +
          'owner (a plain list of addresses is no longer accepted: docs/deploy.md "Approvers", "Upgrading from a ' +
          'comma-separated approvers list"; ' +
          'use "*" as the owner for an approver every owner may name).',
      );
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`context approvers must be a JSON object of owner id → [emails], e.g. ${example}.`);
  const owners = new Map<string, string[]>();
  for (const [owner, emails] of Object.entries(parsed)) {
    for (const email of Array.isArray(emails) ? emails : [emails]) {
      if (typeof email !== 'string')
        throw new Error(`context approvers: owner '${owner}' must map to email addresses, e.g. ${example}.`);
      const address = email.trim().toLowerCase();
      owners.set(address, [...(owners.get(address) ?? []), owner]);
    }
  }
  // Declared for every owner ('*') as well as for some: every owner is what was asked.
  return [...owners].map(([email, declared]) => ({
    email,
    owners: declared.includes('*') ? ['*'] : declared,
  }));
}
