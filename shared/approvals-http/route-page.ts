/** `GET`/`HEAD /approvals/:approvalId?t=…`: the confirmation page. Changes nothing: scanners prefetch links. */
import type { Context } from 'hono';
import {
  approvalPostUrl,
  checkWithKeyring,
  issueFormNonce,
  keyringSourceOf,
  type PageHeadClaim,
  renderApprovalPage,
  verifyApprovalLink,
} from '../approvals/index.ts';
import type { ActionSpec } from '../core/actions.ts';
import { cutText } from '../core/byte-caps.ts';
import type { RunStore } from '../core/store-port.ts';
import { serviceStepView } from '../graph-run/agent-view.ts';
import type { Approval } from '../schemas/approval.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import { isAgentVersion, type WorkflowVersion } from '../schemas/workflow-record.ts';
import type { AppContext } from './app-context.ts';
import { sealFormState } from './form-state.ts';
import { loadForLink } from './load.ts';
import { readHintsOf } from './read-hints.ts';
import { htmlResponse, linkRefused, resultResponse } from './results.ts';
import { type GrantState, grantCheckOf } from './still-granted.ts';

/** What the page saw of the workflow, for the form nonce: only an answer that rests on a head revision. */
function headClaimOf(grant: { state: GrantState; headRev?: number }): PageHeadClaim | undefined {
  if (grant.headRev === undefined || grant.state === 'unknown') return undefined;
  return { rev: grant.headRev, grant: grant.state };
}

type ActionInfo = {
  description: string;
  irreversible: boolean;
  externalPublish: boolean;
  target?: { method: string; url: string } | undefined;
};

/** The method and URL an HTTP action's call would hit; none when it cannot tell (the arguments still show). */
function targetOf(action: ActionSpec, args: unknown) {
  try {
    return action.target?.(args);
  } catch {
    return undefined;
  }
}

/** Whether this very call publishes outside the deployment (a fault says yes: the warning errs on the side of caution). */
function publishes(action: ActionSpec, args: unknown): boolean {
  try {
    return action.publishesExternally?.(args) === true;
  } catch {
    return true;
  }
}

/** The agent definition the action resolves in: the workflow's, or a graph service step's view of its node. */
function definitionFor(version: WorkflowVersion, approval: Approval): WorkflowDefinition | undefined {
  if (isAgentVersion(version)) return version.definition;
  const graph = version.definition;
  const node = graph.kind === 'graph' ? graph.nodes.find((n) => n.id === approval.step?.stepId) : undefined;
  return graph.kind === 'graph' && node?.type === 'service_task' ? serviceStepView(graph, node) : undefined;
}

type VersionReader = RunStore['getWorkflowVersion'];

/**
 * `read`, each version read at most once: the description and the grant check both need the approval's version,
 * and in a container that has not kept it yet (the store's cache) they would otherwise read it twice at once.
 */
function readOnce(read: VersionReader): VersionReader {
  const reads = new Map<string, ReturnType<VersionReader>>();
  return (owner, workflowId, version) => {
    const key = JSON.stringify([owner, workflowId, version]);
    const pending = reads.get(key) ?? read(owner, workflowId, version);
    reads.set(key, pending);
    return pending;
  };
}

/** The action's description and flag from the workflow's catalog; none if it cannot be resolved. */
async function actionInfo(
  deps: AppContext,
  approval: Approval,
  versionOf: VersionReader,
): Promise<ActionInfo> {
  const none = { description: '', irreversible: false, externalPublish: false };
  if (deps.actions === undefined) return none;
  try {
    const version = await versionOf(approval.owner, approval.workflowId, approval.workflowVersion);
    const definition = version && definitionFor(version, approval);
    if (!definition) return none;
    const action = deps.actions.resolve(approval.tool, definition);
    if (!action) return none;
    // The connector declaration says which of the two it is; the action only knows "at least needs approval".
    const connector = definition.connectors[approval.tool];
    return {
      description: action.description,
      irreversible: connector ? connector.irreversible : action.irreversible,
      externalPublish: (connector?.externalPublish ?? false) || publishes(action, approval.args),
      target: targetOf(action, approval.args),
    };
  } catch (error) {
    // A description is a courtesy; the decision rests on the arguments, which are shown regardless.
    deps.logger.warn('could not resolve the action for an approval page', {
      approvalId: approval.approvalId,
      error: (error as Error).name,
    });
    return none;
  }
}

/** Renders the page for a valid, open approval; a result page (4xx) otherwise. */
export function pageHandler(deps: AppContext) {
  return async (c: Context): Promise<Response> => {
    const approvalId = c.req.param('approvalId') ?? '';
    const nowMs = deps.clock.nowMs();
    // The signature first: a forged link learns nothing about which approvals exist.
    const { result: link, keyring } = await checkWithKeyring(keyringSourceOf(deps.keyring), (ring) =>
      verifyApprovalLink(c.req.query('t'), ring, { nowMs, approvalId }),
    );
    if (!link.ok) {
      deps.logger.warn('approval link refused', { approvalId: cutText(approvalId, 80), reason: link.reason });
      return resultResponse(linkRefused(link.reason));
    }
    const { claims } = link;
    // The link names the run and workflow head (read-hints.ts): the approval, its run and its head are one read.
    const loaded = await loadForLink(
      deps,
      claims,
      nowMs,
      readHintsOf((name) => c.req.query(name)),
    );
    if (!loaded.ok) return resultResponse(loaded.result);
    const { approval, run } = loaded;
    const versionOf = readOnce(deps.store.getWorkflowVersion.bind(deps.store));
    const [info, grant] = await Promise.all([
      actionInfo(deps, approval, versionOf),
      grantCheckOf(
        { getWorkflowHead: deps.store.getWorkflowHead.bind(deps.store), getWorkflowVersion: versionOf },
        approval,
        loaded.head,
      ),
    ]);
    // Fresh per render, bound to this approval and approver; stateless, so rendering writes nothing. It carries
    // the head revision this page rests on: an approval is recorded only while the head is still there.
    const nonce = issueFormNonce(
      { approvalId, approver: claims.approver, nowMs, head: headClaimOf(grant) },
      keyring,
    );
    const html = renderApprovalPage({
      owner: approval.owner,
      workflowName: approval.workflowName,
      workflowId: approval.workflowId,
      version: approval.workflowVersion,
      runId: run.runId,
      tool: approval.tool,
      toolDescription: info.description,
      ...(info.target ? { target: info.target } : {}),
      args: approval.args as Record<string, unknown>,
      reason: approval.reason,
      step: approval.step,
      approver: claims.approver,
      expiresAtIso: approval.expiresAt,
      token: c.req.query('t') ?? '',
      nonce,
      // The approval and run this page read, sealed and bound to the nonce: the decision, on whichever container
      // it lands, commits on them instead of reading them again (form-state.ts).
      state: sealFormState({ approval, run }, { approvalId, approver: claims.approver, nonce }, keyring),
      // The run rides on the form action, so the decision reads the approval and its run in one request.
      postUrl: `${approvalPostUrl(deps.publicBaseUrl, approvalId)}?run=${encodeURIComponent(run.runId)}`,
      flags: {
        irreversible: info.irreversible,
        externalPublish: info.externalPublish,
        withdrawn: grant.state === 'withdrawn',
      },
    });
    return htmlResponse(200, html);
  };
}
